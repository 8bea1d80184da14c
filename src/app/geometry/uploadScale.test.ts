import { describe, expect, it } from 'vitest';
import { polygonsToOriginal, scaleBox, scalePoint, scaledSize, uploadScaleFor } from './uploadScale';

describe('upload scaling', () => {
  it('leaves images within the recommended size alone', () => {
    expect(uploadScaleFor(600, 400)).toBe(1);
    expect(uploadScaleFor(1024, 1024)).toBe(1);
  });

  it('scales the longest side to 1024', () => {
    const scale = uploadScaleFor(4000, 3000);
    expect(scale).toBeCloseTo(0.256);
    expect(scaledSize(4000, 3000, scale)).toEqual({ width: 1024, height: 768 });
  });

  it('scales prompts out and polygons back to original pixels', () => {
    const scale = uploadScaleFor(2048, 1024);
    expect(scalePoint({ x: 1000, y: 500, positive: false }, scale)).toEqual({ x: 500, y: 250, positive: false });
    expect(scaleBox({ x: 100, y: 100, width: 50, height: 20 }, scale)).toEqual({ x: 50, y: 50, width: 25, height: 10 });
    const back = polygonsToOriginal([{ outer: [[10, 10], [20, 10], [20, 20]], holes: [[[12, 12], [13, 12], [13, 13]]] }], scale);
    expect(back[0].outer).toEqual([[20, 20], [40, 20], [40, 40]]);
    expect(back[0].holes[0]).toEqual([[24, 24], [26, 24], [26, 26]]);
  });
});
