import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { labelComponents, maskIoU, maskToPolygons, rasterizePolygons, signedArea2 } from './polygons';
import type { BinaryMask } from './types';

function maskFrom(width: number, height: number, inside: (x: number, y: number) => boolean): BinaryMask {
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data[y * width + x] = inside(x + 0.5, y + 0.5) ? 1 : 0;
  return { width, height, data };
}

function roundTripIoU(mask: BinaryMask, tolerance?: number): number {
  return maskIoU(rasterizePolygons(maskToPolygons(mask, { tolerance }), mask.width, mask.height), mask);
}

const donut = maskFrom(120, 100, (x, y) => {
  const r = Math.hypot(x - 60, y - 50);
  return r < 40 && r > 18;
});

describe('maskToPolygons', () => {
  it('traces a donut as one part with one hole, outer clockwise and hole counter-clockwise', () => {
    const polygons = maskToPolygons(donut);
    expect(polygons).toHaveLength(1);
    expect(polygons[0].holes).toHaveLength(1);
    expect(signedArea2(polygons[0].outer)).toBeGreaterThan(0);
    expect(signedArea2(polygons[0].holes[0])).toBeLessThan(0);
  });

  it('gives one polygon per connected part; diagonal touches are separate parts', () => {
    const mask: BinaryMask = {
      width: 4,
      height: 4,
      data: new Uint8Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1]),
    };
    const polygons = maskToPolygons(mask, { tolerance: 0 });
    expect(polygons).toHaveLength(3);
    expect(labelComponents(mask).count).toBe(3);
    expect(polygons[0].outer).toEqual([[1, 0.5], [0.5, 1], [0, 0.5], [0.5, 0]]); // marching-squares diamond of one pixel
    expect(roundTripIoU(mask, 0)).toBe(1);
  });

  it('keeps a hole whose corner touches the outside diagonally as a hole of the same part', () => {
    // A 5×5 square with a 1-pixel hole in its middle and a notch: hole pixels are 8-connected background.
    const mask = maskFrom(7, 7, (x, y) => x > 1 && x < 6 && y > 1 && y < 6 && !(Math.floor(x) === 3 && Math.floor(y) === 3));
    const polygons = maskToPolygons(mask, { tolerance: 0 });
    expect(polygons).toHaveLength(1);
    expect(polygons[0].holes).toHaveLength(1);
    expect(roundTripIoU(mask, 0)).toBe(1);
  });

  it('reproduces any mask exactly at tolerance 0 (random masks)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 24 }),
        fc.integer({ min: 1, max: 24 }),
        fc.array(fc.boolean(), { minLength: 576, maxLength: 576 }),
        (w, h, bits) => {
          const mask: BinaryMask = { width: w, height: h, data: Uint8Array.from(bits.slice(0, w * h), (b) => (b ? 1 : 0)) };
          return roundTripIoU(mask, 0) === 1;
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps IoU ≥ 0.98 at the default tolerance on smooth shapes with holes, small and large', () => {
    const shapes: BinaryMask[] = [
      donut,
      maskFrom(40, 40, (x, y) => Math.hypot(x - 20, y - 20) < 8), // small disc
      maskFrom(200, 150, (x, y) => Math.abs(x - 100) + Math.abs(y - 75) < 60 && Math.hypot(x - 100, y - 75) > 15), // diamond with round hole
      maskFrom(300, 200, (x, y) => (x - 150) ** 2 / 120 ** 2 + (y - 100) ** 2 / 40 ** 2 < 1 && !(x > 60 && x < 90 && y > 90 && y < 110)),
      maskFrom(64, 64, (x, y) => (Math.floor(x / 16) + Math.floor(y / 16)) % 2 === 0), // checkerboard of squares
    ];
    for (const mask of shapes) expect(roundTripIoU(mask)).toBeGreaterThanOrEqual(0.98);
  });

  it('simplifies: far fewer vertices than the pixel staircase', () => {
    const disc = maskFrom(400, 400, (x, y) => Math.hypot(x - 200, y - 200) < 150);
    const exact = maskToPolygons(disc, { tolerance: 0 })[0].outer.length;
    const simplified = maskToPolygons(disc)[0].outer.length;
    expect(simplified).toBeLessThan(exact / 2);
  });

  it('drops parts smaller than minArea', () => {
    const mask = maskFrom(50, 50, (x, y) => Math.hypot(x - 25, y - 25) < 15 || (x < 2 && y < 2));
    expect(maskToPolygons(mask)).toHaveLength(2);
    expect(maskToPolygons(mask, { minArea: 10 })).toHaveLength(1);
  });

  it('returns nothing for an empty mask', () => {
    expect(maskToPolygons({ width: 10, height: 10, data: new Uint8Array(100) })).toEqual([]);
  });
});

describe('rasterizePolygons', () => {
  it('fills pixel centers inside, honouring holes whatever their orientation', () => {
    const outer: [number, number][] = [[0, 0], [10, 0], [10, 10], [0, 10]];
    const hole: [number, number][] = [[3, 3], [7, 3], [7, 7], [3, 7]]; // clockwise like the outer ring
    const mask = rasterizePolygons([{ outer, holes: [hole] }], 12, 12);
    let count = 0;
    for (const v of mask.data) count += v;
    expect(count).toBe(100 - 16);
    expect(mask.data[5 * 12 + 5]).toBe(0);
    expect(mask.data[1 * 12 + 1]).toBe(1);
    expect(mask.data[10 * 12 + 10]).toBe(0);
  });
});
