import { describe, expect, it } from 'vitest';
import { dedupeProposals } from './proposalDedupe';
import type { BinaryMask } from './types';

const rect = (x0: number, y0: number, x1: number, y1: number, w = 20, h = 20): BinaryMask => {
  const data = new Uint8Array(w * h);
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) data[y * w + x] = 1;
  return { width: w, height: h, data };
};

describe('dedupeProposals', () => {
  it('an unlabelled accepted object swallows proposals of any class inside it; a labelled one only its own class', () => {
    const proposal = { mask: rect(5, 5, 8, 8), classKey: 'cup' };
    expect(dedupeProposals([{ mask: rect(0, 0, 12, 12), classKey: null }], [proposal]).dropped.map((d) => d.reason)).toEqual(['inside-accepted']);
    expect(dedupeProposals([{ mask: rect(0, 0, 12, 12), classKey: 'table' }], [proposal]).kept).toEqual([proposal]);
  });

  it('keeps the order given and says why each one was left out', () => {
    const best = { mask: rect(0, 0, 10, 10), classKey: 'car' };
    const again = { mask: rect(0, 0, 10, 9), classKey: 'truck' };
    const other = { mask: rect(12, 12, 18, 18), classKey: 'car' };
    const result = dedupeProposals([], [best, again, other]);
    expect(result.kept).toEqual([best, other]);
    expect(result.dropped).toEqual([{ proposal: again, reason: 'repeats-proposal' }]);
  });

  it('refuses masks of different sizes', () => {
    expect(() => dedupeProposals([{ mask: rect(0, 0, 2, 2, 10, 10), classKey: null }], [{ mask: rect(0, 0, 2, 2), classKey: 'a' }])).toThrow(RangeError);
  });
});
