/**
 * What segment-everything reads off a mask token's 256² logits before deciding to keep it, so only the
 * kept few are upsampled to the photo's size: the box around the mask, in image pixels.
 */
import { LOW_RES_SIZE, MODEL_SIZE, type ModelFrame } from '../frame';
import { validLowResRegion } from '../candidates';
import type { CornerBox } from '../text/detector';

const CELL = MODEL_SIZE / LOW_RES_SIZE;

/** The box (corner form, image pixels) around the cells with a positive logit; undefined when none. */
export function lowResBox(logits: Float32Array, frame: ModelFrame): CornerBox | undefined {
  const region = validLowResRegion(frame);
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < region.height; y++) {
    const row = y * LOW_RES_SIZE;
    for (let x = 0; x < region.width; x++) {
      if (logits[row + x] > 0) {
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        y1 = y;
      }
    }
  }
  if (x1 < 0) return undefined;
  return {
    x0: (x0 * CELL) / frame.scaleX,
    y0: (y0 * CELL) / frame.scaleY,
    x1: Math.min(frame.width, ((x1 + 1) * CELL) / frame.scaleX),
    y1: Math.min(frame.height, ((y1 + 1) * CELL) / frame.scaleY),
  };
}
