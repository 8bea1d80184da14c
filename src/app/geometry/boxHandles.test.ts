import { describe, expect, it } from 'vitest';
import { BOX_HANDLES, boxContains, boxPolygon, handlePoint, resizeBox } from './boxHandles';

const BOX = [10, 20, 40, 30] as const;

describe('box handles', () => {
  it('sit on the corners and the edge midpoints', () => {
    expect(BOX_HANDLES.map((h) => handlePoint(BOX, h))).toEqual([
      [10, 20],
      [30, 20],
      [50, 20],
      [50, 35],
      [50, 50],
      [30, 50],
      [10, 50],
      [10, 35],
    ]);
  });

  it('a corner moves its two edges, the opposite corner stays', () => {
    expect(resizeBox(BOX, 'se', [70, 60])).toEqual([10, 20, 60, 40]);
    expect(resizeBox(BOX, 'nw', [0, 0])).toEqual([0, 0, 50, 50]);
  });

  it('an edge handle moves its edge alone, whatever the other coordinate of the pointer', () => {
    expect(resizeBox(BOX, 'e', [80, 999])).toEqual([10, 20, 70, 30]);
    expect(resizeBox(BOX, 'n', [-999, 30])).toEqual([10, 30, 40, 20]);
  });

  it('dragged past the opposite edge, the box flips instead of a negative size', () => {
    expect(resizeBox(BOX, 'w', [60, 0])).toEqual([50, 20, 10, 30]);
  });

  it('as a polygon and a hit test', () => {
    expect(boxPolygon(BOX).outer).toEqual([
      [10, 20],
      [50, 20],
      [50, 50],
      [10, 50],
    ]);
    expect([boxContains(BOX, [30, 30]), boxContains(BOX, [9, 30]), boxContains(BOX, [30, 51])]).toEqual([true, false, false]);
  });
});
