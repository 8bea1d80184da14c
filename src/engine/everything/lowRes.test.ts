import { describe, expect, it } from 'vitest';
import { LOW_RES_SIZE, modelFrame } from '../frame';
import { lowResBox } from './lowRes';

describe('lowResBox', () => {
  it('maps the positive cells inside the image to a box in image pixels, ignoring the padding', () => {
    // 2048×1024: scale 0.5, the image fills the top half of the frame (128 of the 256 rows).
    const frame = modelFrame(2048, 1024);
    const logits = new Float32Array(LOW_RES_SIZE * LOW_RES_SIZE).fill(-1);
    logits[10 * LOW_RES_SIZE + 20] = 1; // cell (20, 10) = model pixels [80, 84) × [40, 44)
    logits[12 * LOW_RES_SIZE + 30] = 1;
    logits[200 * LOW_RES_SIZE + 40] = 1; // in the padding below the image
    expect(lowResBox(logits, frame)).toEqual({ x0: 160, y0: 80, x1: 248, y1: 104 });
  });

  it('is undefined for an empty mask', () => {
    expect(lowResBox(new Float32Array(LOW_RES_SIZE * LOW_RES_SIZE).fill(-1), modelFrame(100, 100))).toBeUndefined();
  });
});
