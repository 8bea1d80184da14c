import { describe, expect, it } from 'vitest';
import { insideShare, suppressSameClassOverlaps } from './suppress';

const raccoon = { box: { x0: 0, y0: 0, x1: 100, y1: 80 }, classId: 'raccoon', probability: 0.9 };
const head = { box: { x0: 10, y0: 5, x1: 40, y1: 30 }, classId: 'raccoon', probability: 0.7 };
const again = { box: { x0: 2, y0: 0, x1: 100, y1: 78 }, classId: 'raccoon', probability: 0.6 };
const other = { box: { x0: 120, y0: 0, x1: 200, y1: 80 }, classId: 'raccoon', probability: 0.5 };
const dogOnIt = { box: { x0: 10, y0: 5, x1: 40, y1: 30 }, classId: 'dog', probability: 0.4 };

describe('same-class suppression', () => {
  it("drops a duplicate of a more probable proposal of its class, keeps a region inside one, another instance and another class's", () => {
    expect(suppressSameClassOverlaps([head, other, raccoon, again, dogOnIt])).toEqual([raccoon, head, other, dogOnIt]);
  });

  it('keeps the animal inside a more probable whole-photo region of its class: the larger region is not known to be the object', () => {
    const wholePhoto = { box: { x0: 0, y0: 0, x1: 200, y1: 150 }, classId: 'raccoon', probability: 0.99 };
    expect(suppressSameClassOverlaps([raccoon, wholePhoto])).toEqual([wholePhoto, raccoon]);
  });

  it('drops a part of a settled object of its class (one already on the photo)', () => {
    const onPhoto = { ...raccoon, probability: Infinity };
    expect(suppressSameClassOverlaps([onPhoto, head, other], (p) => p === onPhoto)).toEqual([onPhoto, other]);
  });

  it('insideShare is the share of the inner box within the outer', () => {
    expect(insideShare(head.box, raccoon.box)).toBe(1);
    expect(insideShare({ x0: 90, y0: 0, x1: 110, y1: 10 }, raccoon.box)).toBeCloseTo(0.5, 6);
  });
});
