import { describe, expect, it } from 'vitest';
import type { TokenOutputs } from '../candidates';
import { LOW_RES_SIZE, modelFrame } from '../frame';
import { boxPromptToken } from './boxToken';

// 1024×1024: scale 1, one low-resolution cell is 4×4 image pixels.
const frame = modelFrame(1024, 1024);
const CELL = 4;

/** Four masks, each a rectangle of cells given in image pixels (stable: far from the threshold). */
function outputsOf(rects: readonly { x0: number; y0: number; x1: number; y1: number }[]): TokenOutputs {
  const area = LOW_RES_SIZE * LOW_RES_SIZE;
  const logits = new Float32Array(rects.length * area).fill(-10);
  rects.forEach((r, token) => {
    for (let y = r.y0 / CELL; y < r.y1 / CELL; y++) for (let x = r.x0 / CELL; x < r.x1 / CELL; x++) logits[token * area + y * LOW_RES_SIZE + x] = 10;
  });
  return { logits, iou: new Float32Array(rects.length).fill(0.9), tokens: rects.length };
}

const prompt = { x0: 40, y0: 40, x1: 80, y1: 80 };
const spilling = { x0: 0, y0: 0, x1: 200, y1: 200 };
const part = { x0: 40, y0: 40, x1: 60, y1: 60 };

describe('boxPromptToken', () => {
  it("keeps SAM's token 0 for a box under SAM's rule, however poorly its outline fits the box", () => {
    expect(boxPromptToken(outputsOf([spilling, part, prompt, part]), frame, prompt, 'sam')).toEqual({ token: 0 });
  });

  it('takes the mask whose outline fills the box when another agrees better', () => {
    expect(boxPromptToken(outputsOf([spilling, part, prompt, part]), frame, prompt, 'box agreement')).toEqual({ token: 2, agreement: 1 });
  });

  it("leaves SAM's token where no other mask agrees strictly better", () => {
    expect(boxPromptToken(outputsOf([prompt, prompt, part, spilling]), frame, prompt, 'box agreement')).toEqual({ token: 0, agreement: 1 });
  });
});
