/** What the project work pool (projectWorkers.ts) and its worker thread (projectWorker.ts) send each other. */
import type { AnnotationObject, ExportFormat, Project, ProjectImage } from '../../contract/projects';
import type { ProblemSlug } from '../../contract/problems';
import type { LearnedClassesState } from '../../engine/learn/learnedClasses';
import type { AnnotationWriteInput, PreparedAnnotationWrite } from '../domain/projects/annotationWrite';
import type { ProjectExportFile } from '../domain/projects/datasetExport';
import type { LearnedModelWriteInput, PreparedLearnedModel } from '../domain/projects/learnedModelWrite';

/** A project as stored: each image's objects still as the JSON text of their column, parsed in the worker. */
export interface ProjectDatasetSource {
  project: Project;
  images: Array<{ image: ProjectImage; objectsJson: string }>;
  /** The project's learned model as stored, when it has one: the export carries it (learnedModelFile.ts). */
  learnedModelJson?: string;
}

export type ProjectJob =
  | { kind: 'export'; source: ProjectDatasetSource; format: ExportFormat }
  | { kind: 'write'; input: AnnotationWriteInput }
  | { kind: 'learned'; input: LearnedModelWriteInput };

export type ProjectJobResult<J extends ProjectJob> = J extends { kind: 'export' } ? ProjectExportFile : J extends { kind: 'write' } ? PreparedAnnotationWrite : PreparedLearnedModel;

/** A DomainError, as it crosses the thread boundary. */
export interface RefusalMessage {
  slug: ProblemSlug;
  detail: string;
  members?: Record<string, unknown>;
  errors?: { path: string; message: string }[];
}

export type ProjectJobAnswer = { ok: true; result: ProjectExportFile | PreparedAnnotationWrite | PreparedLearnedModel } | ({ ok: false } & RefusalMessage);

export function parseSource(source: ProjectDatasetSource): { project: Project; images: Array<{ image: ProjectImage; objects: AnnotationObject[] }>; learnedModel?: LearnedClassesState } {
  return {
    project: source.project,
    images: source.images.map(({ image, objectsJson }) => ({ image, objects: JSON.parse(objectsJson) as AnnotationObject[] })),
    ...(source.learnedModelJson ? { learnedModel: JSON.parse(source.learnedModelJson) as LearnedClassesState } : {}),
  };
}
