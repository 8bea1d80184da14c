import { describe, expect, it } from 'vitest';
import { objectMask } from './objectMask';

describe('objectMask', () => {
  it('uses the object mask when it covers the image', () => {
    const mask = { width: 4, height: 3, data: new Uint8Array(12).fill(1) };
    expect(objectMask({ mask, polygons: [] }, 4, 3)).toBe(mask);
  });

  it('fills the polygons (holes stay empty) when there is no mask, e.g. an object from the API', () => {
    const square = { outer: [[1, 1], [9, 1], [9, 9], [1, 9]] as [number, number][], holes: [[[4, 4], [6, 4], [6, 6], [4, 6]] as [number, number][]] };
    const mask = objectMask({ polygons: [square] }, 10, 10);
    expect([mask.width, mask.height]).toEqual([10, 10]);
    expect(mask.data.reduce((n, v) => n + v, 0)).toBe(64 - 4);
    expect(mask.data[5 * 10 + 5]).toBe(0);
    expect(mask.data[2 * 10 + 2]).toBe(1);
    expect(mask.data[0]).toBe(0);
  });
});
