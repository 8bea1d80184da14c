/** What the project work pool (projectWorkers.ts) and its worker thread (projectWorker.ts) send each other. */
import type { ExportFormat, Project, ProjectImage } from '../../contract/projects';
import type { ProblemSlug } from '../../contract/problems';
import type { DbLocation } from '../db/connect';
import type { AnnotationWriteJob, AnnotationWriteOutcome } from '../domain/projects/annotationCommit';
import type { ProjectExportFile } from '../domain/projects/datasetExport';
import type { LearnedModelWriteInput, PreparedLearnedModel } from '../domain/projects/learnedModelWrite';

/**
 * A project as the caller may see it, without its objects or learned model: the worker reads both
 * itself, from `database` (storedObjects.ts), so they never pass through the main thread.
 */
export interface ProjectDatasetSource {
  project: Project;
  images: ProjectImage[];
  database: DbLocation;
}

/**
 * A large annotation write, done whole in the thread on a connection of its own to `database`
 * (domain/projects/annotationCommit.ts); `recordEvent`: the server keeps a live stream of its
 * projects, so the write records its event in the same transaction.
 */
export interface AnnotationWriteInThread {
  write: AnnotationWriteJob;
  database: DbLocation;
  recordEvent: boolean;
}

export type ProjectJob =
  | { kind: 'export'; source: ProjectDatasetSource; format: ExportFormat }
  | ({ kind: 'write' } & AnnotationWriteInThread)
  | { kind: 'learned'; input: LearnedModelWriteInput };

export type ProjectJobResult<J extends ProjectJob> = J extends { kind: 'export' } ? ProjectExportFile : J extends { kind: 'write' } ? AnnotationWriteOutcome : PreparedLearnedModel;

/** A DomainError, as it crosses the thread boundary. */
export interface RefusalMessage {
  slug: ProblemSlug;
  detail: string;
  members?: Record<string, unknown>;
  errors?: { path: string; message: string }[];
}

export type ProjectJobAnswer = { ok: true; result: ProjectExportFile | AnnotationWriteOutcome | PreparedLearnedModel } | ({ ok: false } & RefusalMessage);
