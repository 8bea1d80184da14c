import { describe, expect, it } from 'vitest';
import { insideShare, suppressSameClassOverlaps } from './suppress';

const raccoon = { box: { x0: 0, y0: 0, x1: 100, y1: 80 }, classId: 'raccoon', probability: 0.9 };
const head = { box: { x0: 10, y0: 5, x1: 40, y1: 30 }, classId: 'raccoon', probability: 0.7 };
const again = { box: { x0: 2, y0: 0, x1: 100, y1: 78 }, classId: 'raccoon', probability: 0.6 };
const other = { box: { x0: 120, y0: 0, x1: 200, y1: 80 }, classId: 'raccoon', probability: 0.5 };
const dogOnIt = { box: { x0: 10, y0: 5, x1: 40, y1: 30 }, classId: 'dog', probability: 0.4 };

describe('same-class suppression', () => {
  it("drops a part inside a more probable proposal of its class and a duplicate of one, keeps another instance and another class's", () => {
    expect(suppressSameClassOverlaps([head, other, raccoon, again, dogOnIt])).toEqual([raccoon, other, dogOnIt]);
  });

  it('insideShare is the share of the inner box within the outer', () => {
    expect(insideShare(head.box, raccoon.box)).toBe(1);
    expect(insideShare({ x0: 90, y0: 0, x1: 110, y1: 10 }, raccoon.box)).toBeCloseTo(0.5, 6);
  });
});
