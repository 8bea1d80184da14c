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

/**
 * Where the decoder has already answered, on the 256² grid of its logits: the cells of every confident
 * mask it returned so far, kept or not. A click inside one of them asks again about an object the
 * decoder has already outlined (SAM answers a click inside a mask with that mask or a part of it), so
 * segment-everything does not spend a decoder run on it.
 */
export class ExploredCells {
  private readonly cells = new Uint8Array(LOW_RES_SIZE * LOW_RES_SIZE);

  constructor(private readonly frame: ModelFrame) {}

  /** Marks the cells with a positive logit inside the image (not the padding). */
  add(logits: Float32Array): void {
    const region = validLowResRegion(this.frame);
    for (let y = 0; y < region.height; y++) {
      const row = y * LOW_RES_SIZE;
      for (let x = 0; x < region.width; x++) if (logits[row + x] > 0) this.cells[row + x] = 1;
    }
  }

  /** Whether the cell under an image pixel has been marked. */
  has(x: number, y: number): boolean {
    const column = Math.min(LOW_RES_SIZE - 1, Math.floor((x * this.frame.scaleX) / CELL));
    const row = Math.min(LOW_RES_SIZE - 1, Math.floor((y * this.frame.scaleY) / CELL));
    return this.cells[row * LOW_RES_SIZE + column] === 1;
  }
}
