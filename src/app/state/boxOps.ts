import type { BinaryMask, PolygonWithHoles } from '../../engine/types';
import { colorForIndex, isBox, type Annotation, type BoxGeometry } from '../../annotations/annotation';
import { maskArea } from '../geometry/maskPaint';
import type { StudioDocument } from './model';

/**
 * Pure edits of box annotations (detection datasets): add one, move its edges, turn it into a mask.
 * Each returns a new document, or the same one when nothing changes (so no empty undo step).
 */

/** Boxes are kept in whole hundredths of a pixel, as every export writes coordinates. */
const hundredths = (n: number) => Math.round(n * 100) / 100;

/** The box clipped to the image and rounded; null when nothing of it is left. */
export function boxInImage(box: BoxGeometry, width: number, height: number): BoxGeometry | null {
  const left = hundredths(Math.min(width, Math.max(0, box[0])));
  const top = hundredths(Math.min(height, Math.max(0, box[1])));
  const right = hundredths(Math.min(width, Math.max(0, box[0] + box[2])));
  const bottom = hundredths(Math.min(height, Math.max(0, box[1] + box[3])));
  if (right - left < 1 || bottom - top < 1) return null;
  return [left, top, hundredths(right - left), hundredths(bottom - top)];
}

function imageOf(doc: StudioDocument, imageId: string) {
  return doc.images.find((i) => i.id === imageId);
}

/** A new box of the active class. */
export function addBoxObject(doc: StudioDocument, imageId: string, objectId: string, box: BoxGeometry): StudioDocument {
  const image = imageOf(doc, imageId);
  const clipped = image && boxInImage(box, image.width, image.height);
  if (!clipped) return doc;
  const objects = doc.objects[imageId] ?? [];
  const object: Annotation = {
    id: objectId,
    kind: 'box',
    box: clipped,
    label: `box ${objects.length + 1}`,
    classId: doc.activeClassId,
    confidence: 1,
    color: colorForIndex(objects.length),
    visible: true,
    polygons: [],
    source: 'local',
  };
  return { ...doc, objects: { ...doc.objects, [imageId]: [...objects, object] } };
}

/** The box moved or resized (by its handles). */
export function setObjectBox(doc: StudioDocument, imageId: string, objectId: string, box: BoxGeometry): StudioDocument {
  const image = imageOf(doc, imageId);
  const objects = doc.objects[imageId];
  const target = objects?.find((o) => o.id === objectId);
  const clipped = image && boxInImage(box, image.width, image.height);
  if (!objects || !target || !isBox(target) || !clipped || clipped.every((v, i) => v === target.box[i])) return doc;
  return { ...doc, objects: { ...doc.objects, [imageId]: objects.map((o) => (o.id === objectId ? { ...o, box: clipped } : o)) } };
}

/** The object without its box: what becomes of a box that is given pixels (refined, painted, merged). */
export function withoutBox<T extends Annotation>(object: T): Omit<T, 'kind' | 'box'> {
  const { kind: _kind, box: _box, ...rest } = object;
  return rest;
}

/** The mask SAM found for a box, outlined at `outlineTolerance` (the engine's candidate). */
export interface FoundMask {
  readonly mask: BinaryMask;
  readonly polygons: readonly PolygonWithHoles[];
  readonly outlineTolerance: number;
  readonly score: number;
  readonly lowResLogits?: Float32Array;
}

/**
 * The box becomes the mask found in it (SAM's box prompt): same id, place in the list, class, name,
 * review and visibility, so undo gives the box back and the object list does not jump.
 */
export function boxToMask(doc: StudioDocument, imageId: string, objectId: string, found: FoundMask): StudioDocument {
  const objects = doc.objects[imageId];
  const target = objects?.find((o) => o.id === objectId);
  if (!objects || !target || !isBox(target) || maskArea(found.mask) === 0 || found.polygons.length === 0) return doc;
  const { box } = target;
  const masked: Annotation = {
    ...withoutBox(target),
    polygons: found.polygons,
    mask: found.mask,
    outlineTolerance: found.outlineTolerance,
    confidence: found.score,
    ...(found.lowResLogits ? { lowResLogits: found.lowResLogits } : {}),
    prompt: { points: [], box: { x: box[0] + box[2] / 2, y: box[1] + box[3] / 2, width: box[2], height: box[3] } },
  };
  return { ...doc, objects: { ...doc.objects, [imageId]: objects.map((o) => (o.id === objectId ? masked : o)) } };
}
