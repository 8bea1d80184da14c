import { describe, expect, it } from 'vitest';
import { boxFromCenterDrag, boxFromCorners, boxFromDrag, boxToCornerRect, clampBoxToImage, isBoxLargeEnough } from './centerBox';

describe('center-anchored box', () => {
  it('keeps the press point as the center whichever way the user drags', () => {
    expect(boxFromCenterDrag([100, 80], [130, 100])).toEqual({ x: 100, y: 80, width: 60, height: 40 });
    expect(boxFromCenterDrag([100, 80], [70, 60])).toEqual({ x: 100, y: 80, width: 60, height: 40 });
  });

  it('converts to a corner rectangle for drawing', () => {
    expect(boxToCornerRect({ x: 100, y: 80, width: 60, height: 40 })).toEqual({ left: 70, top: 60, width: 60, height: 40 });
  });

  it('clamps to the image and re-centers', () => {
    expect(clampBoxToImage({ x: 10, y: 10, width: 40, height: 40 }, 100, 100)).toEqual({ x: 15, y: 15, width: 30, height: 30 });
  });

  it('rejects a click without a drag', () => {
    expect(isBoxLargeEnough(boxFromCenterDrag([5, 5], [5, 6]))).toBe(false);
    expect(isBoxLargeEnough(boxFromCenterDrag([5, 5], [15, 16]))).toBe(true);
  });

  it('corner to corner gives the same center-anchored box, exactly, whichever corner comes first', () => {
    expect(boxFromCorners([70, 60], [130, 100])).toEqual({ x: 100, y: 80, width: 60, height: 40 });
    expect(boxFromCorners([130.5, 100.25], [70, 60])).toEqual({ x: 100.25, y: 80.125, width: 60.5, height: 40.25 });
    const box = boxFromCorners([12.3, 45.6], [78.9, 101.1]);
    const rect = boxToCornerRect(box);
    expect(rect.left).toBeCloseTo(12.3, 12);
    expect(rect.top + rect.height).toBeCloseTo(101.1, 12);
  });

  it('a drag by the setting: the anchor as the center, or as a corner', () => {
    expect(boxFromDrag([100, 80], [130, 100], false)).toEqual(boxFromCenterDrag([100, 80], [130, 100]));
    expect(boxFromDrag([70, 60], [130, 100], true)).toEqual(boxFromCorners([70, 60], [130, 100]));
  });
});
