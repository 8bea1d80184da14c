import { describe, expect, it } from 'vitest';
import { emptyMask, maskArea, maskBox, maskIoU, paintStroke, unionMasks } from './maskPaint';

describe('mask painting', () => {
  it('a dab paints a round brush of the given radius', () => {
    const mask = paintStroke(emptyMask(40, 40), [[20, 20]], 5, 1);
    // Pixel centres within 5 px of (20, 20): about π·25.
    expect(Math.abs(maskArea(mask) - Math.PI * 25)).toBeLessThan(8);
    expect(mask.data[20 * 40 + 20]).toBe(1);
    expect(mask.data[20 * 40 + 26]).toBe(0);
  });

  it('a stroke covers the whole swept segment, without gaps between events', () => {
    const mask = paintStroke(emptyMask(60, 20), [[5, 10], [55, 10]], 2, 1);
    for (let x = 5; x < 55; x++) expect(mask.data[10 * 60 + x]).toBe(1);
    expect(maskBox(mask)).toEqual([3, 8, 54, 4]);
  });

  it('the eraser clears pixels and leaves the input untouched', () => {
    const full = { width: 10, height: 10, data: new Uint8Array(100).fill(1) };
    const erased = paintStroke(full, [[5, 5]], 1.5, 0);
    expect(maskArea(full)).toBe(100);
    expect(maskArea(erased)).toBeLessThan(100);
    expect(erased.data[5 * 10 + 5]).toBe(0);
  });

  it('union and IoU', () => {
    const a = paintStroke(emptyMask(20, 20), [[5, 5]], 3, 1);
    const b = paintStroke(emptyMask(20, 20), [[14, 14]], 3, 1);
    const u = unionMasks([a, b]);
    expect(maskArea(u)).toBe(maskArea(a) + maskArea(b));
    expect(maskIoU(a, a)).toBe(1);
    expect(maskIoU(a, u)).toBeCloseTo(0.5, 5);
    expect(maskBox(emptyMask(3, 3))).toBeNull();
  });
});
