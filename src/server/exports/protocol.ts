/** What the export pool (exportWorkers.ts) and its worker thread (exportWorker.ts) send each other. */
import type { AnnotationObject, ExportFormat, Project, ProjectImage } from '../../contract/projects';
import type { ProblemSlug } from '../../contract/problems';

/** A project as stored: each image's objects still as the JSON text of their column, parsed in the worker. */
export interface ProjectDatasetSource {
  project: Project;
  images: Array<{ image: ProjectImage; objectsJson: string }>;
}

export interface ExportJob {
  source: ProjectDatasetSource;
  format: ExportFormat;
}

export type ExportAnswer =
  | { ok: true; contentType: string; fileName: string; body: Uint8Array }
  | { ok: false; slug: ProblemSlug; detail: string; members?: Record<string, unknown> };

export function parseSource(source: ProjectDatasetSource): { project: Project; images: Array<{ image: ProjectImage; objects: AnnotationObject[] }> } {
  return { project: source.project, images: source.images.map(({ image, objectsJson }) => ({ image, objects: JSON.parse(objectsJson) as AnnotationObject[] })) };
}
