/**
 * An annotation write from its body to its commit, on whichever connection it is handed: the
 * request's event loop for a small write, a project worker thread with a connection of its own for
 * a large one (exports/projectWorker.ts), so that neither the parsing nor the SQLite UPDATE of
 * megabytes (synchronous in better-sqlite3) holds other requests up. The body arrives as UTF-8
 * bytes and the stored objects leave as UTF-8 bytes: between threads they are moved, not copied,
 * and the event loop never parses or serialises them.
 *
 * One winner per revision: the UPDATE names the revision the write was made on, so of two writers
 * on one revision, in any threads or processes, exactly one changes the row.
 */
import type { ProjectRole } from '../../../contract/projects';
import type { Db } from '../../db/connect';
import { DomainError } from '../errors';
import { checkProjectVertices } from './annotationLimits';
import { prepareAnnotationWrite } from './annotationWrite';
import type { ProjectEvents } from './projectEvents';
import { roleAllows } from './roles';

export interface AnnotationWriteJob {
  /** The request body as sent (UTF-8 JSON). */
  body: Uint8Array;
  /** `If-Match: "<revision>"`, used when the body names no revision. */
  ifMatchRevision?: number;
  projectId: string;
  imageId: string;
  image: { width: number; height: number };
  classIds: number[];
  writer: { accountId: string; email: string; role: ProjectRole };
  /** Epoch milliseconds: when the write was asked for. */
  now: number;
}

/** An image's annotations with its objects as stored (UTF-8 JSON bytes, spliced into the answer as they are). */
export interface AnnotationsAsStored {
  imageId: string;
  revision: number;
  updatedBy: string | null;
  updatedAt: string | null;
  objects: Uint8Array;
}

/** Written, or refused because the image is no longer at the revision the write was made on. */
export type AnnotationWriteOutcome = { written: true; annotations: AnnotationsAsStored } | { written: false; askedRevision: number; current: AnnotationsAsStored };

const utf8 = new TextDecoder();
const utf8Bytes = (text: string) => new TextEncoder().encode(text);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * Reads the image's stored objects, prepares the write (limits, schema, classes, who changed what:
 * annotationWrite.ts), refuses a review the writer may not make, and commits it with its live-stream
 * event (`events`, when the server keeps a stream) in one transaction, after checking the project's
 * vertex total in that transaction.
 */
export async function commitAnnotationWrite(db: Db, events: ProjectEvents | undefined, job: AnnotationWriteJob): Promise<AnnotationWriteOutcome> {
  const { projectId, imageId, writer } = job;
  const stored = await db.kysely.selectFrom('project_images').select('objects').where('id', '=', imageId).where('project_id', '=', projectId).executeTakeFirst();
  if (!stored) throw new DomainError('not-found', 'no such image in this project');
  const prepared = prepareAnnotationWrite({
    rawBody: utf8.decode(job.body),
    ifMatchRevision: job.ifMatchRevision,
    storedObjectsJson: stored.objects,
    image: job.image,
    classIds: job.classIds,
    writer: writer.email,
    at: iso(job.now)!,
    // Judging proposals is the owner's and the reviewers' (issue 38): an annotator does not approve his own.
    mayReview: roleAllows(writer.role, 'review'),
  });
  if (prepared.decided.length) throw new DomainError('role-forbidden', `a project's ${writer.role} cannot accept or reject objects (${prepared.decided.slice(0, 5).join(', ')})`);
  const revision = prepared.revision + 1;
  const written = await db.transaction(async (trx) => {
    // Two writers on two images at once pass this check one after the other on SQLite (one writer at
    // a time); on PostgreSQL both may pass by at most one image's worth, and the export checks again.
    const others = await trx
      .selectFrom('project_images')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('vertex_count'), eb.lit(0)).as('n'))
      .where('project_id', '=', projectId)
      .where('id', '<>', imageId)
      .executeTakeFirstOrThrow();
    checkProjectVertices(Number(others.n) + prepared.vertices);
    const result = await trx
      .updateTable('project_images')
      .set({ objects: prepared.objectsJson, vertex_count: prepared.vertices, revision, updated_by: writer.accountId, updated_at: job.now })
      .where('id', '=', imageId)
      .where('project_id', '=', projectId)
      .where('revision', '=', prepared.revision)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return false;
    await events?.record(trx, projectId, [{ type: 'annotations', imageId, revision, changedBy: writer.email }]);
    return true;
  });
  if (written) return { written: true, annotations: { imageId, revision, updatedBy: writer.email, updatedAt: iso(job.now), objects: utf8Bytes(prepared.objectsJson) } };
  const current = await db.kysely
    .selectFrom('project_images')
    .leftJoin('accounts', 'accounts.id', 'project_images.updated_by')
    .select(['project_images.revision', 'project_images.objects', 'project_images.updated_at', 'accounts.email'])
    .where('project_images.id', '=', imageId)
    .where('project_images.project_id', '=', projectId)
    .executeTakeFirst();
  if (!current) throw new DomainError('not-found', 'no such image in this project');
  return { written: false, askedRevision: prepared.revision, current: { imageId, revision: current.revision, updatedBy: current.email ?? null, updatedAt: iso(current.updated_at), objects: utf8Bytes(current.objects) } };
}

/** ImageAnnotations as JSON bytes, the stored objects spliced in as they are (never parsed and serialised again). */
export function annotationsJsonBytes({ objects, ...rest }: AnnotationsAsStored): Buffer {
  return Buffer.concat([Buffer.from(`${JSON.stringify(rest).slice(0, -1)},"objects":`), objects, Buffer.from('}')]);
}
