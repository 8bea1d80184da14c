import type { BinaryMask } from './types';

/**
 * Intersection over union of two pixel sets of equal length, a pixel being inside where its value
 * is not zero (1 when both are empty). The one IoU of the engine: masks, low-resolution candidates
 * and the re-rasterized windows of polygon simplification all use it.
 */
export function pixelIoU(a: Uint8Array, b: Uint8Array): number {
  let inter = 0;
  let union = 0;
  for (let i = 0; i < a.length; i++) {
    const p = a[i] !== 0 ? 1 : 0;
    const q = b[i] !== 0 ? 1 : 0;
    inter += p & q;
    union += p | q;
  }
  return union === 0 ? 1 : inter / union;
}

/** Intersection over union of two masks of equal size (1 when both are empty). */
export function maskIoU(a: BinaryMask, b: BinaryMask): number {
  if (a.width !== b.width || a.height !== b.height) throw new RangeError('masks differ in size');
  return pixelIoU(a.data, b.data);
}
