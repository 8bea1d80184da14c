import { describe, expect, it } from 'vitest';
import { cascadePrompt, maskBox } from './cascade';
import type { BinaryMask } from '../../../src/engine/types';

function maskWith(width: number, height: number, pixels: [number, number][]): BinaryMask {
  const data = new Uint8Array(width * height);
  for (const [x, y] of pixels) data[y * width + x] = 1;
  return { width, height, data };
}

describe('maskBox', () => {
  it('is the center-anchored box covering every set pixel, edges included', () => {
    const mask = maskWith(10, 8, [[2, 3], [5, 1], [4, 6]]);
    // Pixels span x 2..5 and y 1..6, so the box runs from 2 to 6 and from 1 to 7.
    expect(maskBox(mask)).toEqual({ x: 4, y: 4, width: 4, height: 6 });
    expect(maskBox(maskWith(3, 3, [[1, 1]]))).toEqual({ x: 1.5, y: 1.5, width: 1, height: 1 });
  });

  it('is undefined for an empty mask', () => {
    expect(maskBox(maskWith(4, 4, []))).toBeUndefined();
  });
});

describe('cascadePrompt', () => {
  const logits = new Float32Array(4);
  const points = [{ x: 3, y: 3 }];
  it("keeps the clicks and adds the answer's box and logits", () => {
    const prompt = cascadePrompt({ points }, maskWith(10, 8, [[2, 3], [5, 1]]), logits);
    expect(prompt).toEqual({ points, box: { x: 4, y: 2.5, width: 4, height: 3 }, maskInput: logits });
  });

  it("keeps the user's own box, and gives up on an empty answer", () => {
    const box = { x: 5, y: 5, width: 4, height: 4 };
    expect(cascadePrompt({ points, box }, maskWith(10, 8, [[0, 0]]), logits)?.box).toEqual(box);
    expect(cascadePrompt({ points }, maskWith(10, 8, []), logits)).toBeUndefined();
  });
});
