import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { paddedSquaredDistanceTransform, squaredDistanceTransform } from './distance';

function bruteForce(mask: Uint8Array, width: number, height: number): Float64Array {
  const out = new Float64Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (!mask[y * width + x]) continue;
      let best = Infinity;
      for (let yy = 0; yy < height; yy++) {
        for (let xx = 0; xx < width; xx++) {
          if (mask[yy * width + xx]) continue;
          best = Math.min(best, (x - xx) ** 2 + (y - yy) ** 2);
        }
      }
      out[y * width + x] = best;
    }
  }
  return out;
}

function pad(mask: Uint8Array, width: number, height: number): Uint8Array {
  const padded = new Uint8Array((width + 2) * (height + 2));
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) padded[(y + 1) * (width + 2) + x + 1] = mask[y * width + x];
  return padded;
}

const randomMask = fc
  .record({ width: fc.integer({ min: 1, max: 17 }), height: fc.integer({ min: 1, max: 17 }), density: fc.double({ min: 0.05, max: 0.98, noNaN: true }), seed: fc.integer() })
  .map(({ width, height, density, seed }) => {
    // A small deterministic generator so dense masks (large distances) are common.
    let state = seed >>> 0 || 1;
    const mask = new Uint8Array(width * height);
    for (let i = 0; i < mask.length; i++) {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      mask[i] = (state >>> 0) / 2 ** 32 < density ? 1 : 0;
    }
    return { width, height, mask };
  });

describe('squaredDistanceTransform', () => {
  it('equals brute force on random masks that contain a zero pixel', () => {
    fc.assert(
      fc.property(randomMask, ({ width, height, mask }) => {
        fc.pre(mask.includes(0));
        expect(Array.from(squaredDistanceTransform(mask, width, height))).toEqual(Array.from(bruteForce(mask, width, height)));
      }),
      { numRuns: 400 },
    );
  });

  it('padded variant equals brute force on the zero-padded mask, cropped', () => {
    fc.assert(
      fc.property(randomMask, ({ width, height, mask }) => {
        const expected = bruteForce(pad(mask, width, height), width + 2, height + 2);
        const cropped: number[] = [];
        for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) cropped.push(expected[(y + 1) * (width + 2) + x + 1]);
        expect(Array.from(paddedSquaredDistanceTransform(mask, width, height))).toEqual(cropped);
      }),
      { numRuns: 400 },
    );
  });

  it('gives exact integer squared distances on a large object', () => {
    const width = 301;
    const height = 201;
    const mask = new Uint8Array(width * height).fill(1);
    const d = paddedSquaredDistanceTransform(mask, width, height);
    // Centre pixel (150, 100) is 101 pixels from the padded top/bottom border rows.
    expect(d[100 * width + 150]).toBe(101 * 101);
    expect(d[0]).toBe(1);
    expect(d.every(Number.isInteger)).toBe(true);
  });
});
