import { maskIoU } from '../../engine/polygons';
import type { ImageEntry, SegObject } from '../state/model';
import { studio, useStudio } from '../state/studioStore';
import { objectMask } from '../geometry/objectMask';

/**
 * Running a text prompt (or "Find similar") again on the same image finds the same objects again:
 * an incoming object that overlaps an object already on the image (or one added just before it) at
 * mask IoU ≥ `iou` is the same object, and is not added twice.
 */
export const DUPLICATE_IOU = 0.9;

type Outline = Pick<SegObject, 'mask' | 'polygons'>;

export function withoutDuplicates<T extends Outline>(
  existing: readonly Outline[],
  incoming: readonly T[],
  width: number,
  height: number,
  iou = DUPLICATE_IOU,
): { added: T[]; duplicates: number } {
  const kept = existing.map((o) => objectMask(o, width, height));
  const added: T[] = [];
  for (const object of incoming) {
    const mask = objectMask(object, width, height);
    if (kept.some((k) => maskIoU(k, mask) >= iou)) continue;
    kept.push(mask);
    added.push(object);
  }
  return { added, duplicates: incoming.length - added.length };
}

/** Adds the objects to the image in one undo step, leaving out those already there; returns how many were left out. */
export function addWithoutDuplicates(
  image: Pick<ImageEntry, 'id' | 'width' | 'height'>,
  objects: ReadonlyArray<Omit<SegObject, 'color' | 'id'>>,
  action?: string,
): { added: number; duplicates: number } {
  const existing = useStudio.getState().history.present.objects[image.id] ?? [];
  const { added, duplicates } = withoutDuplicates(existing, objects, image.width, image.height);
  if (added.length > 0) studio.addObjects(image.id, added, action);
  return { added: added.length, duplicates };
}
