/**
 * Position and size modifiers ("left cat", "largest car") choose among a prompt's instances by
 * their masks: centroid for left/right/top/bottom, pixel area for largest/smallest.
 */
import { describe, expect, it } from 'vitest';
import type { BinaryMask } from '../types';
import { pickExtreme, type TextInstance } from './pipeline';

const W = 100;
const H = 60;

/** An instance whose mask is the rectangle [x0, x1) × [y0, y1). */
function instance(name: string, x0: number, y0: number, x1: number, y1: number): TextInstance & { name: string } {
  const data = new Uint8Array(W * H);
  for (let y = y0; y < y1; y++) data.fill(1, y * W + x0, y * W + x1);
  const mask: BinaryMask = { width: W, height: H, data };
  return { name, label: 'cat', confidence: 0.5, detectorScore: 0.6, maskScore: 0.8, box: { x0, y0, x1, y1 }, mask, area: (x1 - x0) * (y1 - y0) };
}

// A wide strip at the top left, a small square bottom right, a tall block in the middle.
const strip = instance('strip', 0, 0, 40, 10);
const square = instance('square', 85, 50, 95, 60);
const block = instance('block', 45, 5, 60, 55);
const all = [strip, square, block];
const pick = (extreme: Parameters<typeof pickExtreme>[1]) => pickExtreme(all, extreme).map((t) => (t as typeof strip).name);

describe('pickExtreme', () => {
  it('picks by mask centroid for left, right, top and bottom', () => {
    expect(pick('leftmost')).toEqual(['strip']);
    expect(pick('rightmost')).toEqual(['square']);
    expect(pick('topmost')).toEqual(['strip']);
    expect(pick('bottommost')).toEqual(['square']);
  });

  it('picks by mask area for largest and smallest', () => {
    expect(pick('largest')).toEqual(['block']); // 750 px against 400 and 100
    expect(pick('smallest')).toEqual(['square']);
  });

  it('keeps exactly one instance, and none of none', () => {
    for (const extreme of ['leftmost', 'rightmost', 'topmost', 'bottommost', 'largest', 'smallest'] as const) {
      expect(pickExtreme(all, extreme)).toHaveLength(1);
      expect(pickExtreme([], extreme)).toEqual([]);
    }
  });
});
