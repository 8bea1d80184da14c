import { describe, expect, it } from 'vitest';
import { maskBounds } from './bounds';

describe('maskBounds', () => {
  it('is the inclusive rectangle of the set pixels, or undefined for none', () => {
    const data = new Uint8Array(6 * 5);
    for (const [x, y] of [[1, 3], [4, 1], [2, 2]]) data[y * 6 + x] = 1;
    expect(maskBounds(data, 6, 5)).toEqual({ x0: 1, y0: 1, x1: 4, y1: 3 });
    expect(maskBounds(new Uint8Array(30), 6, 5)).toBeUndefined();
  });
});
