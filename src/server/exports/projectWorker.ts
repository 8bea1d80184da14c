/**
 * A project's heavy work, one job at a time, in a thread of its own (kept for the next job for a
 * while, then ended with its heap by the pool, projectWorkers.ts):
 * - an export: reads the stored annotations and the learned model with a connection of its own
 *   (storedObjects.ts), parses them, checks the annotations against the limits (rows written before
 *   the limits existed are counted here), writes the format with the model beside them, hands the
 *   file back (its bytes moved, not copied);
 * - a large annotation write: reads the image's stored objects the same way, then parses, limits,
 *   validates and stamps the body (annotationWrite.ts);
 * - a large learned model's PUT body: parsed and validated (learnedModelWrite.ts).
 */
import { parentPort } from 'node:worker_threads';
import { DomainError } from '../domain/errors';
import { annotationSize, checkImageAnnotationSize, checkProjectVertices } from '../domain/projects/annotationLimits';
import { prepareAnnotationWrite } from '../domain/projects/annotationWrite';
import { exportProject, type ProjectExportFile } from '../domain/projects/datasetExport';
import { prepareLearnedModelWrite } from '../domain/projects/learnedModelWrite';
import type { AnnotationObject } from '../../contract/projects';
import type { LearnedClassesState } from '../../engine/learn/learnedClasses';
import type { ProjectJob, ProjectJobAnswer } from './protocol';
import { readExportSource, readStoredObjects } from './storedObjects';

async function exportDataset(job: Extract<ProjectJob, { kind: 'export' }>): Promise<ProjectExportFile> {
  const { project, images, database } = job.source;
  const stored = await readExportSource(database, project.id, images.map((image) => image.id));
  const data = {
    project,
    images: images.map((image) => ({ image, objects: JSON.parse(stored.objects.get(image.id) ?? '[]') as AnnotationObject[] })),
    ...(stored.learnedModelJson ? { learnedModel: JSON.parse(stored.learnedModelJson) as LearnedClassesState } : {}),
  };
  let vertices = 0;
  for (const { objects } of data.images) {
    const size = annotationSize(objects);
    checkImageAnnotationSize(size);
    vertices += size.vertices;
  }
  checkProjectVertices(vertices);
  return exportProject(data, job.format);
}

async function prepareWrite({ input, stored }: Extract<ProjectJob, { kind: 'write' }>) {
  const objects = await readStoredObjects(stored.database, stored.projectId, [stored.imageId]);
  return prepareAnnotationWrite({ ...input, storedObjectsJson: objects.get(stored.imageId) ?? '[]' });
}

async function run(job: ProjectJob): Promise<ProjectJobAnswer> {
  try {
    return { ok: true, result: job.kind === 'export' ? await exportDataset(job) : job.kind === 'write' ? await prepareWrite(job) : prepareLearnedModelWrite(job.input) };
  } catch (error) {
    if (error instanceof DomainError) return { ok: false, slug: error.slug, detail: error.detail ?? error.message, members: error.extra.members, errors: error.extra.errors };
    throw error;
  }
}

// Jobs come one at a time; the pool ends the thread when none came for a while.
parentPort!.on('message', async (job: ProjectJob) => {
  const answer = await run(job);
  const transfer = answer.ok && 'body' in answer.result ? [answer.result.body.buffer as ArrayBuffer] : [];
  parentPort!.postMessage(answer, transfer);
});
parentPort!.postMessage('ready');
