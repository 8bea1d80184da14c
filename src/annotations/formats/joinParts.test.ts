import { describe, expect, it } from 'vitest';
import type { Ring } from '../../engine/types';
import { joinParts } from './joinParts';
import { fillPolygons } from '../rasterize';

const square = (x: number, y: number, s: number): Ring => [
  [x, y],
  [x + s, y],
  [x + s, y + s],
  [x, y + s],
];
const fill = (rings: Ring[]) => {
  const data = new Uint8Array(40 * 40);
  fillPolygons(data, 40, 40, [{ outer: [], holes: rings }], 1);
  return data;
};

describe('joinParts (Ultralytics merge_multi_segment style)', () => {
  it('one ring through three parts that fills exactly the parts, linked at the closest vertices', () => {
    const parts = [square(2, 2, 6), square(15, 3, 5), square(28, 20, 8)];
    const ring = joinParts(parts);
    expect([...fill([ring])]).toEqual([...fill(parts)]);
    // Every vertex of every part is on the ring; the links are walked out and back (zero width).
    for (const part of parts) for (const v of part) expect(ring.some((r) => r[0] === v[0] && r[1] === v[1])).toBe(true);
    expect(ring[0]).toEqual([8, 8]); // the first part's vertex closest to the second ((15, 8), 7 px away)
  });

  it('leaves a single part as it is', () => {
    expect(joinParts([square(1, 1, 3)])).toEqual(square(1, 1, 3));
  });
});
