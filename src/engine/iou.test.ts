import { describe, expect, it } from 'vitest';
import { maskIoU, pixelIoU } from './iou';

describe('pixelIoU / maskIoU', () => {
  it('counts any non-zero value as inside', () => {
    expect(pixelIoU(Uint8Array.of(1, 1, 0, 0), Uint8Array.of(255, 0, 0, 0))).toBe(0.5);
    expect(pixelIoU(Uint8Array.of(1, 0, 1, 0), Uint8Array.of(0, 1, 0, 1))).toBe(0);
  });
  it('is 1 for two empty sets and for equal ones', () => {
    expect(pixelIoU(new Uint8Array(4), new Uint8Array(4))).toBe(1);
    expect(pixelIoU(Uint8Array.of(0, 3, 3), Uint8Array.of(0, 1, 1))).toBe(1);
  });
  it('refuses masks of different sizes', () => {
    const mask = (width: number, height: number) => ({ width, height, data: new Uint8Array(width * height) });
    expect(maskIoU(mask(2, 2), mask(2, 2))).toBe(1);
    expect(() => maskIoU(mask(2, 2), mask(4, 1))).toThrow(RangeError);
  });
});
