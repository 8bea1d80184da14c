/**
 * A server project as the studio's document: the wire mapping itself is the annotation room's
 * (src/annotations/wire.ts); this adds what only the studio holds (the active image and class).
 */
import type { ClassDef } from '../../annotations/annotation';
import { fromWireDataset, type WireDataset } from '../../annotations/wire';
import type { Project, ProjectImage } from '../../contract/projects';
import { emptyDocument, type StudioDocument } from '../state/model';

export const toProjectClasses = (classes: readonly ClassDef[]): ClassDef[] => classes.map(({ id, name, color }) => ({ id, name, color }));

export interface ProjectData {
  project: Project;
  images: WireDataset['images'] & ReadonlyArray<{ image: ProjectImage }>;
}

/**
 * A project as the studio's document: its images (under the ids `imageId` gives them: the photo's
 * content id in the studio), classes and objects.
 */
export function projectDocument({ project, images }: ProjectData, imageId: (image: ProjectImage) => string = (image) => image.id): StudioDocument {
  const dataset = fromWireDataset({ classes: project.classes, images }, (image) => imageId(image as ProjectImage));
  return { ...emptyDocument(), ...dataset, classes: project.classes, activeImageId: dataset.images[0]?.id ?? null };
}
