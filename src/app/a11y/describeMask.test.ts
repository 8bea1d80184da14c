import { describe, expect, it } from 'vitest';
import type { PolygonWithHoles } from '../../engine/types';
import { describeMask } from './describeMask';

const square = (x: number, y: number, side: number): PolygonWithHoles => ({
  outer: [[x, y], [x + side, y], [x + side, y + side], [x, y + side]],
  holes: [],
});

describe('result announcement', () => {
  it('speaks the share of the image and the number of parts', () => {
    expect(describeMask([square(0, 0, 10), square(20, 20, 10)], 40, 40)).toBe('Mask: 13 % of the image, 2 parts.');
    expect(describeMask([square(0, 0, 20)], 40, 40, 3)).toBe('Mask: 25 % of the image, 1 part; 3 candidates, [ and ] to switch.');
  });

  it('holes count against the area; tiny masks are "< 1 %"; nothing is said plainly', () => {
    const ring: PolygonWithHoles = { ...square(0, 0, 20), holes: [square(5, 5, 10).outer] };
    expect(describeMask([ring], 40, 40)).toBe('Mask: 19 % of the image, 1 part.');
    expect(describeMask([square(0, 0, 1)], 1000, 1000)).toBe('Mask: < 1 % of the image, 1 part.');
    expect(describeMask([], 10, 10)).toBe('No mask found.');
  });
});
