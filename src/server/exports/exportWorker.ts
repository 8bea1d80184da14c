/**
 * One export, in a thread of its own: parses the project's stored annotations, checks them against
 * the annotation limits (rows written before the limits existed are counted here), writes the
 * format, hands the file back (its bytes moved, not copied) and ends. The thread's heap goes with
 * it, so a large export leaves nothing behind in the server.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { DomainError } from '../domain/errors';
import { annotationSize, checkImageAnnotationSize, checkProjectVertices } from '../domain/projects/annotationLimits';
import { exportProject } from '../domain/projects/datasetExport';
import { parseSource, type ExportAnswer, type ExportJob } from './protocol';

async function run({ source, format }: ExportJob): Promise<ExportAnswer> {
  try {
    const data = parseSource(source);
    let vertices = 0;
    for (const { objects } of data.images) {
      const size = annotationSize(objects);
      checkImageAnnotationSize(size);
      vertices += size.vertices;
    }
    checkProjectVertices(vertices);
    const file = await exportProject(data, format);
    return { ok: true, contentType: file.contentType, fileName: file.fileName, body: file.body };
  } catch (error) {
    if (error instanceof DomainError) return { ok: false, slug: error.slug, detail: error.detail ?? error.message, members: error.extra.members };
    throw error;
  }
}

const answer = await run(workerData as ExportJob);
parentPort!.postMessage(answer, answer.ok ? [answer.body.buffer as ArrayBuffer] : []);
