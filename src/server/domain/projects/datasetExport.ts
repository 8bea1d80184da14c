/**
 * The server's one adapter onto the studio's dataset writers (src/app/export, pure): a project is
 * turned into the document the studio would hold (src/app/projects/annotationMapping.ts) and
 * written by the same functions, so a server export equals the studio's export of the same data.
 */
import { toCoco } from '../../../app/export/coco';
import { sessionDataset } from '../../../app/export/sessionDataset';
import { yoloZip } from '../../../app/export/yolo';
import { fromAnnotationObject } from '../../../app/projects/annotationMapping';
import type { StudioDocument } from '../../../app/state/model';
import { emptyDocument } from '../../../app/state/model';
import type { AnnotationObject, ExportFormat, Project, ProjectImage } from '../../../contract/projects';

export interface ProjectData {
  project: Project;
  images: ReadonlyArray<{ image: ProjectImage; objects: readonly AnnotationObject[] }>;
}

export function projectDocument({ project, images }: ProjectData): StudioDocument {
  return {
    ...emptyDocument(),
    images: images.map(({ image }) => ({ id: image.id, name: image.name, width: image.width, height: image.height })),
    objects: Object.fromEntries(images.map(({ image, objects }) => [image.id, objects.map((o, i) => fromAnnotationObject(o, project.classes, i))])),
    classes: project.classes,
  };
}

export interface ExportFile {
  contentType: string;
  fileName: string;
  body: string | Uint8Array;
}

/** Hidden objects are exported, as the studio's default ("Include hidden objects" ticked). */
export function exportProject(data: ProjectData, format: ExportFormat, now = new Date()): ExportFile {
  const dataset = sessionDataset(projectDocument(data), { includeHidden: true });
  const base = data.project.name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'project';
  if (format === 'coco') return { contentType: 'application/json', fileName: `${base}-coco.json`, body: JSON.stringify(toCoco(dataset.entries, dataset.categories, now)) };
  return { contentType: 'application/zip', fileName: `${base}-yolo.zip`, body: yoloZip(dataset.entries, dataset.categories, false) };
}
