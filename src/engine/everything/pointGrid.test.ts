import { describe, expect, it } from 'vitest';
import { pointGrid } from './pointGrid';

describe('pointGrid', () => {
  it('puts n×n points at the cell centres, row by row, none on the border', () => {
    const points = pointGrid(2, 100, 50);
    expect(points).toEqual([
      { x: 25, y: 12.5, positive: true },
      { x: 75, y: 12.5, positive: true },
      { x: 25, y: 37.5, positive: true },
      { x: 75, y: 37.5, positive: true },
    ]);
    expect(pointGrid(32, 640, 480)).toHaveLength(1024);
  });

  it('rejects a side that is not a positive integer', () => {
    expect(() => pointGrid(0, 10, 10)).toThrow(RangeError);
    expect(() => pointGrid(2.5, 10, 10)).toThrow(RangeError);
  });
});
