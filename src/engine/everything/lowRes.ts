/**
 * What segment-everything reads off a mask token's 256² logits before deciding to keep it, so only the
 * kept few are upsampled to the photo's size: the box around the mask, in image pixels.
 */
import { LOW_RES_SIZE, MODEL_SIZE, type ModelFrame } from '../frame';
import { validLowResRegion } from '../candidates';
import type { CornerBox } from '../text/detector';
import { positiveCells } from '../upsample';

const CELL = MODEL_SIZE / LOW_RES_SIZE;

/** The box (corner form, image pixels) around the cells with a positive logit; undefined when none. */
export function lowResBox(logits: Float32Array, frame: ModelFrame): CornerBox | undefined {
  const region = validLowResRegion(frame);
  const cells = positiveCells(logits, region.width, region.height);
  if (!cells) return undefined;
  return {
    x0: (cells.x0 * CELL) / frame.scaleX,
    y0: (cells.y0 * CELL) / frame.scaleY,
    x1: Math.min(frame.width, ((cells.x1 + 1) * CELL) / frame.scaleX),
    y1: Math.min(frame.height, ((cells.y1 + 1) * CELL) / frame.scaleY),
  };
}
