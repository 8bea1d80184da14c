import { maskOutline } from '../../engine/polygons';
import type { BinaryMask, BoxPrompt, PolygonWithHoles } from '../../engine/types';
import { maskArea, unionMasks } from '../geometry/maskPaint';
import { boundsOf } from '../../annotations/polygon';
import { objectMask } from '../geometry/objectMask';
import { colorForIndex, type Annotation } from '../../annotations/annotation';
import { emptyPrompt, type StudioDocument } from './model';
import type { Outline } from './outlineOps';
import { withoutBox } from './boxOps';

/**
 * Pure edits of accepted objects (brush, eraser, vertices, duplicate, merge, split, refine).
 * Each returns a new document, or the same one when nothing changes (so no empty undo step).
 */

function imageSize(doc: StudioDocument, imageId: string): { width: number; height: number } | null {
  const image = doc.images.find((i) => i.id === imageId);
  return image ? { width: image.width, height: image.height } : null;
}

function withObjects(doc: StudioDocument, imageId: string, objects: readonly Annotation[]): StudioDocument {
  return { ...doc, objects: { ...doc.objects, [imageId]: objects } };
}

function findObject(doc: StudioDocument, imageId: string, objectId: string): Annotation | undefined {
  return doc.objects[imageId]?.find((o) => o.id === objectId);
}

/**
 * The painted mask becomes the object; its polygons are traced at `outline` (the Detail slider's),
 * here where the mask was painted (parts and holes kept). An empty mask removes the object.
 */
export function replaceObjectMask(doc: StudioDocument, imageId: string, objectId: string, mask: BinaryMask, outline: Outline): StudioDocument {
  const objects = doc.objects[imageId];
  if (!objects || !findObject(doc, imageId, objectId)) return doc;
  const area = maskArea(mask);
  if (area === 0) return withObjects(doc, imageId, objects.filter((o) => o.id !== objectId));
  const polygons = maskOutline(mask, { ...outline, area });
  return withObjects(
    doc,
    imageId,
    objects.map((o) => (o.id === objectId ? { ...withoutBox(o), mask, polygons, outlineTolerance: outline.tolerance } : o)),
  );
}

/** Hand-edited vertices are the truth from now on: the mask is dropped and re-derived from the polygons where needed. */
export function setObjectPolygons(doc: StudioDocument, imageId: string, objectId: string, polygons: readonly PolygonWithHoles[]): StudioDocument {
  const objects = doc.objects[imageId];
  const target = findObject(doc, imageId, objectId);
  if (!objects || !target || target.polygons === polygons) return doc;
  return withObjects(
    doc,
    imageId,
    objects.map((o) => (o.id === objectId ? { ...o, polygons, mask: undefined } : o)),
  );
}

/** A new object painted with the brush where nothing was selected. */
export function addPaintedObject(doc: StudioDocument, imageId: string, objectId: string, mask: BinaryMask, outline: Outline): StudioDocument {
  const objects = doc.objects[imageId] ?? [];
  const area = maskArea(mask);
  if (area === 0) return doc;
  const object: Annotation = {
    id: objectId,
    label: `object ${objects.length + 1}`,
    classId: doc.activeClassId,
    confidence: 1,
    color: colorForIndex(objects.length),
    visible: true,
    polygons: maskOutline(mask, { ...outline, area }),
    mask,
    outlineTolerance: outline.tolerance,
    source: 'local',
  };
  return withObjects(doc, imageId, [...objects, object]);
}

export function deleteObjects(doc: StudioDocument, imageId: string, objectIds: readonly string[]): StudioDocument {
  const objects = doc.objects[imageId];
  if (!objects?.some((o) => objectIds.includes(o.id))) return doc;
  return withObjects(
    doc,
    imageId,
    objects.filter((o) => !objectIds.includes(o.id)),
  );
}

/** The copy goes right above the original in the stacking order. */
export function duplicateObject(doc: StudioDocument, imageId: string, objectId: string, copyId: string): StudioDocument {
  const objects = doc.objects[imageId];
  const index = objects?.findIndex((o) => o.id === objectId) ?? -1;
  if (!objects || index < 0) return doc;
  const original = objects[index];
  const copy: Annotation = { ...original, id: copyId, label: `${original.label} copy` };
  return withObjects(doc, imageId, [...objects.slice(0, index + 1), copy, ...objects.slice(index + 1)]);
}

/** The union of the objects' pixels, kept under the first object's id, class and place in the stack. */
export function mergeObjects(doc: StudioDocument, imageId: string, objectIds: readonly string[], outline: Outline): StudioDocument {
  const objects = doc.objects[imageId];
  const size = imageSize(doc, imageId);
  const parts = objects?.filter((o) => objectIds.includes(o.id)) ?? [];
  if (!objects || !size || parts.length < 2) return doc;
  const mask = unionMasks(parts.map((o) => objectMask(o, size.width, size.height)));
  const [first] = parts;
  const merged: Annotation = { ...withoutBox(first), mask, polygons: maskOutline(mask, outline), outlineTolerance: outline.tolerance, confidence: Math.min(...parts.map((p) => p.confidence)), prompt: undefined, lowResLogits: undefined };
  return withObjects(
    doc,
    imageId,
    objects.filter((o) => o === first || !objectIds.includes(o.id)).map((o) => (o === first ? merged : o)),
  );
}

/** Each separate part (polygon with its holes) becomes its own object; the first part keeps the id. */
export function splitObject(doc: StudioDocument, imageId: string, objectId: string, newId: () => string): StudioDocument {
  const objects = doc.objects[imageId];
  const size = imageSize(doc, imageId);
  const index = objects?.findIndex((o) => o.id === objectId) ?? -1;
  if (!objects || !size || index < 0) return doc;
  const original = objects[index];
  if (original.polygons.length < 2) return doc;
  const parts = original.polygons.map((polygon, i): Annotation => {
    const shape = { ...original, polygons: [polygon], mask: undefined };
    return {
      ...shape,
      id: i === 0 ? original.id : newId(),
      label: i === 0 ? original.label : `${original.label} part ${i + 1}`,
      mask: original.mask ? objectMask(shape, size.width, size.height) : undefined,
      prompt: undefined,
      lowResLogits: undefined,
    };
  });
  return withObjects(doc, imageId, [...objects.slice(0, index), ...parts, ...objects.slice(index + 1)]);
}

/**
 * Starts refining an accepted object: its own prompt and its mask (with the decoder's logits) become
 * the current prompt, so the next click continues from them. Accepting replaces the object.
 */
export function beginRefine(doc: StudioDocument, imageId: string, objectId: string, revision: number): StudioDocument {
  const object = findObject(doc, imageId, objectId);
  if (!object) return doc;
  const current = doc.prompts[imageId];
  if (current?.targetObjectId === objectId) return doc;
  const prompt = {
    ...emptyPrompt(revision),
    points: object.prompt?.points ?? [],
    // An object drawn or imported by hand has no prompt: its box stands in for one.
    box: object.prompt ? object.prompt.box : boxAround(object.polygons),
    candidates: [{ polygons: object.polygons, score: object.confidence, area: 0, mask: object.mask, lowResLogits: object.lowResLogits }],
    status: 'done' as const,
    targetObjectId: objectId,
  };
  return { ...doc, prompts: { ...doc.prompts, [imageId]: prompt } };
}

function boxAround(polygons: readonly PolygonWithHoles[]): BoxPrompt | null {
  const b = boundsOf(polygons);
  return b ? { x: b.left + b.width / 2, y: b.top + b.height / 2, width: b.width, height: b.height } : null;
}
