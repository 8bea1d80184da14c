import { maskOutline } from '../../engine/polygons';
import type { BinaryMask, Vertex } from '../../engine/types';
import { maskArea, maskIoU } from '../geometry/maskPaint';
import { objectMask } from '../geometry/objectMask';
import { colorForIndex, isBox, isTag, type Annotation, type BoxGeometry, type ImageEntry } from '../../annotations/annotation';
import { type StudioDocument } from '../state/model';
import type { Outline } from '../state/outlineOps';
import { tagAnnotation } from '../state/tagOps';
import { classKey, mapClasses } from '../../annotations/formats/classMapping';
import { baseName, type ImportedAnnotation, type ImportedDataset } from '../../annotations/formats/imported';
import { fillPolygons } from '../../annotations/rasterize';

/**
 * A read dataset meets the session: annotations matched to open images by file name, classes
 * mapped by name (classMapping.ts), and nothing added twice — an annotation whose class and pixels
 * match an object already on its image (mask IoU ≥ SAME_OBJECT_IOU) is counted as already present,
 * so importing the same file again adds nothing.
 */
export const SAME_OBJECT_IOU = 0.9;

export interface ImportResult {
  readonly doc: StudioDocument;
  readonly added: number;
  readonly alreadyPresent: number;
  /** What could not be placed, with the reason, so nothing is dropped silently. */
  readonly unmatched: readonly string[];
  /** Class changes a user should know about (classes added, ids that could not be kept). */
  readonly classNotes: readonly string[];
}

const matchKey = (name: string) => baseName(name).toLowerCase();

/** The annotation's pixels on its image, or null when it has none there. */
export function annotationMask(a: ImportedAnnotation, image: Pick<ImageEntry, 'width' | 'height'>): BinaryMask | null {
  const { width, height } = image;
  let mask = a.mask;
  if (!mask && (a.rings || a.polygons)) {
    const scale = (v: Vertex): Vertex => (a.normalised ? [v[0] * width, v[1] * height] : v);
    const data = new Uint8Array(width * height);
    if (a.rings) fillPolygons(data, width, height, [{ outer: [], holes: a.rings.map((r) => r.map(scale)) }], 1);
    if (a.polygons) fillPolygons(data, width, height, a.polygons.map((p) => ({ outer: p.outer.map(scale), holes: p.holes.map((h) => h.map(scale)) })), 1);
    mask = { width, height, data };
  }
  if (!mask || mask.width !== width || mask.height !== height || maskArea(mask) === 0) return null;
  return mask;
}

/** The annotation's box on its image (scaled when normalised, clipped to the image), or null when it is not a box or covers nothing there. */
export function annotationBox(a: ImportedAnnotation, image: Pick<ImageEntry, 'width' | 'height'>): BoxGeometry | null {
  if (!a.box) return null;
  const [x, y, w, h] = a.normalised ? [a.box[0] * image.width, a.box[1] * image.height, a.box[2] * image.width, a.box[3] * image.height] : a.box;
  const round = (n: number) => Math.round(n * 100) / 100;
  const left = Math.max(0, x);
  const top = Math.max(0, y);
  const right = Math.min(image.width, x + w);
  const bottom = Math.min(image.height, y + h);
  if (right <= left || bottom <= top) return null;
  return [round(left), round(top), round(right - left), round(bottom - top)];
}

export function boxIoU(a: BoxGeometry, b: BoxGeometry): number {
  const w = Math.min(a[0] + a[2], b[0] + b[2]) - Math.max(a[0], b[0]);
  const h = Math.min(a[1] + a[3], b[1] + b[3]) - Math.max(a[1], b[1]);
  if (w <= 0 || h <= 0) return 0;
  const overlap = w * h;
  return overlap / (a[2] * a[3] + b[2] * b[3] - overlap);
}

export function importAnnotations(doc: StudioDocument, dataset: Pick<ImportedDataset, 'annotations' | 'categories'>, newId: () => string, outline: Outline): ImportResult {
  const mapping = mapClasses(doc, dataset.categories, dataset.annotations.map((a) => a.className), (id) => colorForIndex(id - 1));
  let added = 0;
  let alreadyPresent = 0;
  const unmatched = new Map<string, number>();
  const note = (reason: string) => unmatched.set(reason, (unmatched.get(reason) ?? 0) + 1);
  const objects: Record<string, Annotation[]> = {};
  const before = new Map<string, Array<{ classId: number | null; mask: BinaryMask }>>();
  for (const a of dataset.annotations) {
    const image = doc.images.find((i) => matchKey(i.name) === matchKey(a.fileName));
    if (!image) {
      note(`${a.fileName}: no open image of that name`);
      continue;
    }
    const classId = mapping.idOf.get(classKey(a.className)) ?? null;
    if (a.tag) {
      const list = (objects[image.id] ??= [...(doc.objects[image.id] ?? [])]);
      const classDef = [...doc.classes, ...mapping.created].find((c) => c.id === classId);
      if (!classDef) note(`${a.fileName}: tag without a class`);
      else if (list.some((o) => isTag(o) && o.classId === classId)) alreadyPresent++;
      else list.push(tagAnnotation(newId(), classDef)), added++;
      continue;
    }
    if (a.box) {
      const box = annotationBox(a, image);
      if (!box) {
        note(`${a.fileName}: empty box or outside its image`);
        continue;
      }
      const list = (objects[image.id] ??= [...(doc.objects[image.id] ?? [])]);
      if (list.some((o) => isBox(o) && (o.classId ?? null) === classId && boxIoU(o.box, box) >= SAME_OBJECT_IOU)) {
        alreadyPresent++;
        continue;
      }
      list.push({
        id: newId(),
        kind: 'box',
        box,
        label: a.label ?? `${a.className} ${list.length + 1}`,
        classId,
        confidence: a.score ?? 1,
        color: a.color ?? colorForIndex(list.length),
        visible: a.visible ?? true,
        polygons: [],
        source: 'local',
        ...(a.review ? { review: a.review } : {}),
      });
      added++;
      continue;
    }
    const mask = annotationMask(a, image);
    if (!mask) {
      note(`${a.fileName}: empty or wrong-sized shape`);
      continue;
    }
    let existing = before.get(image.id);
    if (!existing) {
      existing = (doc.objects[image.id] ?? []).filter((o) => !isTag(o)).map((o) => ({ classId: o.classId ?? null, mask: objectMask(o, image.width, image.height) }));
      before.set(image.id, existing);
    }
    if (existing.some((o) => o.classId === classId && maskIoU(o.mask, mask) >= SAME_OBJECT_IOU)) {
      alreadyPresent++;
      continue;
    }
    const list = (objects[image.id] ??= [...(doc.objects[image.id] ?? [])]);
    const area = maskArea(mask);
    list.push({
      id: newId(),
      label: a.label ?? `${a.className} ${list.length + 1}`,
      classId,
      confidence: a.score ?? 1,
      color: a.color ?? colorForIndex(list.length),
      visible: a.visible ?? true,
      polygons: maskOutline(mask, { ...outline, area }),
      mask,
      outlineTolerance: outline.tolerance,
      source: 'local',
      ...(a.review ? { review: a.review } : {}),
    });
    added++;
  }
  const unmatchedList = [...unmatched].map(([reason, n]) => `${reason} (${n} annotation${n === 1 ? '' : 's'})`);
  const classes = [...doc.classes, ...mapping.created];
  const lastClassId = classes.reduce((max, c) => Math.max(max, c.id), doc.lastClassId ?? 0);
  const next: StudioDocument = { ...doc, classes, lastClassId, activeClassId: doc.activeClassId ?? classes[0]?.id ?? null, objects: { ...doc.objects, ...objects } };
  return { doc: next, added, alreadyPresent, unmatched: unmatchedList, classNotes: mapping.notes };
}
