/**
 * A project's heavy work, one job at a time, in a thread of its own (kept for the next job for a
 * while, then ended with its heap by the pool, projectWorkers.ts):
 * - an export: reads the stored annotations and the learned model with a connection of its own
 *   (storedObjects.ts), parses them, checks the annotations against the limits (rows written before
 *   the limits existed are counted here), writes the format with the model beside them, hands the
 *   file back (its bytes moved, not copied);
 * - a large annotation write, whole: read, parsed, limited, validated, stamped and committed with
 *   its event on a connection of its own (annotationCommit.ts), the stored objects handed back as
 *   bytes (moved);
 * - a large learned model's PUT body: parsed and validated (learnedModelWrite.ts).
 */
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { DomainError } from '../domain/errors';
import { annotationSize, checkImageAnnotationSize, checkProjectVertices } from '../domain/projects/annotationLimits';
import { connectDatabase, type Db, type DbLocation } from '../db/connect';
import { commitAnnotationWrite, type AnnotationWriteOutcome } from '../domain/projects/annotationCommit';
import { ProjectEvents } from '../domain/projects/projectEvents';
import { exportProject, type ProjectExportFile } from '../domain/projects/datasetExport';
import { prepareLearnedModelWrite } from '../domain/projects/learnedModelWrite';
import type { AnnotationObject } from '../../contract/projects';
import type { LearnedClassesState } from '../../engine/learn/learnedClasses';
import type { ProjectJob, ProjectJobAnswer } from './protocol';
import { readExportSource } from './storedObjects';

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

/** The thread's connection to each database it wrote to, kept while the thread lives (the pool ends idle threads). */
const connections = new Map<string, Promise<Db>>();

function connection(location: DbLocation): Promise<Db> {
  const key = JSON.stringify(location);
  let db = connections.get(key);
  if (!db) {
    db = connectDatabase(location);
    connections.set(key, db);
    db.catch(() => connections.delete(key));
  }
  return db;
}

async function writeAnnotations({ write, database, recordEvent }: Extract<ProjectJob, { kind: 'write' }>): Promise<AnnotationWriteOutcome> {
  const db = await connection(database);
  // The event is stamped with the request's time, as the write is; its channel is the deployment's (its PostgreSQL schema).
  const listen = database.dialect === 'postgres' ? { connectionString: database.url, schema: database.schema } : undefined;
  const events = recordEvent ? new ProjectEvents(db, { now: () => write.now }, listen) : undefined;
  return commitAnnotationWrite(db, events, write);
}

/** The answer's bytes that move to the main thread instead of being copied: an export's file, a write's stored objects. */
function movable(answer: ProjectJobAnswer): ArrayBuffer[] {
  if (!answer.ok) return [];
  const { result } = answer;
  if ('body' in result) return [result.body.buffer as ArrayBuffer];
  if ('written' in result) return [(result.written ? result.annotations : result.current).objects.buffer as ArrayBuffer];
  return [];
}

async function run(job: ProjectJob): Promise<ProjectJobAnswer> {
  try {
    return { ok: true, result: job.kind === 'export' ? await exportDataset(job) : job.kind === 'write' ? await writeAnnotations(job) : prepareLearnedModelWrite(job.input) };
  } catch (error) {
    if (error instanceof DomainError) return { ok: false, slug: error.slug, detail: error.detail ?? error.message, members: error.extra.members, errors: error.extra.errors };
    throw error;
  }
}

/**
 * The niceness of this thread (Linux keeps one per thread; other systems may apply it to the whole
 * process, so it is set only on Linux): on a machine with fewer free cores than runnable threads, the
 * event loop that answers every other request runs before the one user's heavy job, which only
 * takes longer.
 */
const PROJECT_WORK_NICENESS = 10;
if (process.platform === 'linux') setPriority(PROJECT_WORK_NICENESS);

// Jobs come one at a time; the pool ends the thread when none came for a while.
parentPort!.on('message', async (job: ProjectJob) => {
  const answer = await run(job);
  parentPort!.postMessage(answer, movable(answer));
});
parentPort!.postMessage('ready');
