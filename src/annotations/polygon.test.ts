import { describe, expect, it } from 'vitest';
import type { PolygonWithHoles, Ring } from '../engine/types';
import { boundsOf, bridgeHoles, containsPoint, flattenRing, polygonArea, signedRingArea } from './polygon';

const square = (x: number, y: number, size: number): Ring => [
  [x, y],
  [x + size, y],
  [x + size, y + size],
  [x, y + size],
];

const frame: PolygonWithHoles = { outer: square(0, 0, 10), holes: [square(3, 3, 4)] };

/** Even-odd fill of one ring, sampled at pixel centres. */
function coveredPixels(ring: Ring, size: number): Set<string> {
  const covered = new Set<string>();
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      if (containsPoint({ outer: ring, holes: [] }, [x + 0.5, y + 0.5])) covered.add(`${x},${y}`);
    }
  }
  return covered;
}

describe('polygon geometry', () => {
  it('computes areas with holes subtracted', () => {
    expect(Math.abs(signedRingArea(square(0, 0, 10)))).toBe(100);
    expect(polygonArea(frame)).toBe(84);
  });

  it('computes bounds from outer rings', () => {
    expect(boundsOf([frame, { outer: square(20, 5, 2), holes: [] }])).toEqual({ left: 0, top: 0, width: 22, height: 10 });
    expect(boundsOf([])).toBeNull();
  });

  it('treats points inside a hole as outside', () => {
    expect(containsPoint(frame, [1, 1])).toBe(true);
    expect(containsPoint(frame, [5, 5])).toBe(false);
  });

  it('bridges a hole into one ring covering exactly the same pixels', () => {
    const bridged = bridgeHoles(frame);
    expect(bridged.length).toBe(4 + 5 + 1);
    const expected = new Set<string>();
    for (let y = 0; y < 10; y++) for (let x = 0; x < 10; x++) if (containsPoint(frame, [x + 0.5, y + 0.5])) expected.add(`${x},${y}`);
    expect(coveredPixels(bridged, 10)).toEqual(expected);
    expect(Math.abs(signedRingArea(bridged))).toBe(84);
  });

  it('flattens rings to COCO number lists', () => {
    expect(flattenRing([[1.234, 2], [3, 4.5678]])).toEqual([1.23, 2, 3, 4.57]);
  });
});
