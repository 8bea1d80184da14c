/**
 * One piece of a project's heavy work, in a thread of its own, then the thread ends (its heap with
 * it, so a large job leaves nothing behind in the server):
 * - an export: parses the stored annotations, checks them against the annotation limits (rows
 *   written before the limits existed are counted here), writes the format, hands the file back
 *   (its bytes moved, not copied);
 * - a large annotation write: parses, limits, validates and stamps the body (annotationWrite.ts).
 */
import { parentPort } from 'node:worker_threads';
import { DomainError } from '../domain/errors';
import { annotationSize, checkImageAnnotationSize, checkProjectVertices } from '../domain/projects/annotationLimits';
import { prepareAnnotationWrite } from '../domain/projects/annotationWrite';
import { exportProject, type ProjectExportFile } from '../domain/projects/datasetExport';
import { prepareLearnedModelWrite } from '../domain/projects/learnedModelWrite';
import { parseSource, type ProjectJob, type ProjectJobAnswer } from './protocol';

async function exportDataset(job: Extract<ProjectJob, { kind: 'export' }>): Promise<ProjectExportFile> {
  const data = parseSource(job.source);
  let vertices = 0;
  for (const { objects } of data.images) {
    const size = annotationSize(objects);
    checkImageAnnotationSize(size);
    vertices += size.vertices;
  }
  checkProjectVertices(vertices);
  return exportProject(data, job.format);
}

async function run(job: ProjectJob): Promise<ProjectJobAnswer> {
  try {
    return { ok: true, result: job.kind === 'export' ? await exportDataset(job) : job.kind === 'write' ? prepareAnnotationWrite(job.input) : prepareLearnedModelWrite(job.input) };
  } catch (error) {
    if (error instanceof DomainError) return { ok: false, slug: error.slug, detail: error.detail ?? error.message, members: error.extra.members, errors: error.extra.errors };
    throw error;
  }
}

// Started ahead of its job (the pool keeps one ready), it waits for it, answers, and is ended.
parentPort!.once('message', async (job: ProjectJob) => {
  const answer = await run(job);
  const transfer = answer.ok && 'body' in answer.result ? [answer.result.body.buffer as ArrayBuffer] : [];
  parentPort!.postMessage(answer, transfer);
});
parentPort!.postMessage('ready');
