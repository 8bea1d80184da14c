/**
 * The studio's objects and classes ↔ a server project's (contract/projects.ts). Pure, and the one
 * mapping both sides use: the studio when it syncs, the server when it exports, so an export from
 * the server is the studio's export of the same data.
 */
import type { BinaryMask } from '../../engine/types';
import type { AnnotationObject, Project, ProjectClass, ProjectImage } from '../../contract/projects';
import { colorForIndex, emptyDocument, type ClassDef, type ObjectReview, type ProposalSource, type SegObject, type StudioDocument } from '../state/model';

/** Run lengths, row-major, starting with a run of 0s (possibly empty). */
export function maskToRuns(mask: BinaryMask): number[] {
  const counts: number[] = [];
  let value = 0;
  let run = 0;
  for (let i = 0; i < mask.data.length; i++) {
    const bit = mask.data[i] ? 1 : 0;
    if (bit !== value) {
      counts.push(run);
      value = bit;
      run = 0;
    }
    run++;
  }
  counts.push(run);
  return counts;
}

export function runsToMask(width: number, height: number, counts: readonly number[]): BinaryMask {
  const data = new Uint8Array(width * height);
  let at = 0;
  counts.forEach((run, i) => {
    if (i % 2 === 1) data.fill(1, at, at + run);
    at += run;
  });
  return { width, height, data };
}

export function toAnnotationObject(object: SegObject): AnnotationObject {
  return {
    id: object.id,
    classId: object.classId ?? null,
    polygons: object.polygons.map((p) => ({ outer: p.outer.map(([x, y]) => [x, y] as [number, number]), holes: p.holes.map((h) => h.map(([x, y]) => [x, y] as [number, number])) })),
    ...(object.mask ? { mask: { width: object.mask.width, height: object.mask.height, counts: maskToRuns(object.mask) } } : {}),
    ...(object.outlineTolerance !== undefined ? { outlineTolerance: object.outlineTolerance } : {}),
    label: object.label.slice(0, 200),
    color: object.color,
    source: object.source,
    confidence: Math.min(1, Math.max(0, object.confidence)),
    visible: object.visible,
    ...reviewToProject(object.review),
  };
}

/**
 * A stored object as the studio holds it. `index` picks the colour of an unlabelled object (the
 * studio's palette by position); a labelled one takes its class's colour and name.
 */
export function fromAnnotationObject(object: AnnotationObject, classes: readonly ProjectClass[], index: number): SegObject {
  const cls = classes.find((c) => c.id === object.classId);
  return {
    id: object.id,
    label: cls?.name ?? object.label ?? 'object',
    classId: object.classId,
    confidence: object.confidence,
    color: cls?.color ?? object.color ?? colorForIndex(index),
    visible: object.visible,
    polygons: object.polygons,
    ...(object.mask ? { mask: runsToMask(object.mask.width, object.mask.height, object.mask.counts) } : {}),
    ...(object.outlineTolerance !== undefined ? { outlineTolerance: object.outlineTolerance } : {}),
    source: object.source,
    ...reviewFromProject(object),
  };
}

/**
 * The studio's review (absent: accepted, made by hand) ↔ the project's: a proposal not yet reviewed
 * is `unreviewed` on the server, and what proposed it travels with it.
 */
function reviewToProject(review: ObjectReview | undefined): Pick<AnnotationObject, 'review' | 'proposedBy'> {
  const state = review?.state ?? 'accepted';
  return { review: state === 'proposed' ? 'unreviewed' : state, ...(review?.source ? { proposedBy: review.source } : {}) };
}

function reviewFromProject(object: AnnotationObject): { review?: ObjectReview } {
  const source: ProposalSource | undefined = object.proposedBy;
  const state = object.review === 'unreviewed' ? 'proposed' : object.review;
  if (state === 'accepted' && !source) return {};
  return { review: { state, ...(source ? { source } : {}) } };
}

export const toProjectClasses = (classes: readonly ClassDef[]): ProjectClass[] => classes.map(({ id, name, color }) => ({ id, name, color }));

export interface ProjectData {
  project: Project;
  images: ReadonlyArray<{ image: ProjectImage; objects: readonly AnnotationObject[] }>;
}

/**
 * A project as the studio's document: its images (under the ids `imageId` gives them: the server's
 * for an export, the photo's content id in the studio), classes and objects.
 */
export function projectDocument({ project, images }: ProjectData, imageId: (image: ProjectImage) => string = (image) => image.id): StudioDocument {
  const entries = images.map(({ image }) => ({ id: imageId(image), name: image.name, width: image.width, height: image.height }));
  return {
    ...emptyDocument(),
    images: entries,
    activeImageId: entries[0]?.id ?? null,
    objects: Object.fromEntries(images.map(({ objects }, i) => [entries[i].id, objects.map((o, j) => fromAnnotationObject(o, project.classes, j))])),
    classes: project.classes,
  };
}
