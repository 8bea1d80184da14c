import { describe, expect, it } from 'vitest';
import { modelFrame, toModelCoords } from './frame';
import { PIXEL_MEAN, PIXEL_STD, preprocessImage, resampleWeights, resizeRgbToPlanar } from './preprocess';
import type { RgbaImage } from './types';

function solid(width: number, height: number, rgb: [number, number, number]): RgbaImage {
  const data = new Uint8Array(width * height * 4);
  for (let i = 0; i < width * height; i++) data.set([...rgb, 255], i * 4);
  return { width, height, data };
}

describe('modelFrame', () => {
  it('scales the longest side to 1024 and rounds the other like SAM (int(x + 0.5))', () => {
    const f = modelFrame(600, 400);
    expect([f.resizedWidth, f.resizedHeight]).toEqual([1024, 683]); // 400 * 1024/600 = 682.67
    expect(f.scaleX).toBeCloseTo(1024 / 600, 10);
    expect(f.scaleY).toBeCloseTo(683 / 400, 10);
    expect(toModelCoords(f, 300, 200)).toEqual([512, 341.5]);
  });

  it('upscales small portrait images', () => {
    const f = modelFrame(100, 200);
    expect([f.resizedWidth, f.resizedHeight]).toEqual([512, 1024]);
  });

  it('rejects empty or fractional sizes', () => {
    expect(() => modelFrame(0, 10)).toThrow(RangeError);
    expect(() => modelFrame(10.5, 10)).toThrow(RangeError);
  });
});

describe('preprocessImage', () => {
  it('normalizes with SAM mean/std, CHW, and pads bottom/right with zeros', () => {
    const { tensor, frame } = preprocessImage(solid(600, 400, [200, 100, 50]));
    expect(tensor.dims).toEqual([1, 3, 1024, 1024]);
    const area = 1024 * 1024;
    const expected = [200, 100, 50].map((v, c) => (v - PIXEL_MEAN[c]) / PIXEL_STD[c]);
    for (let c = 0; c < 3; c++) {
      expect(tensor.data[c * area]).toBeCloseTo(expected[c], 4); // top-left
      expect(tensor.data[c * area + (frame.resizedHeight - 1) * 1024 + 1023]).toBeCloseTo(expected[c], 4); // last image row
      expect(tensor.data[c * area + frame.resizedHeight * 1024]).toBe(0); // first padding row
    }
    expect(tensor.data[(frame.resizedHeight + 10) * 1024 + 5]).toBe(0);
  });

  it('antialiases when downscaling: a 1-pixel checkerboard becomes flat grey', () => {
    const w = 2048;
    const h = 1024;
    const data = new Uint8Array(w * h * 4);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data.fill((x + y) % 2 ? 255 : 0, (y * w + x) * 4, (y * w + x) * 4 + 3);
    const [r] = resizeRgbToPlanar({ width: w, height: h, data }, 1024, 512);
    let min = Infinity;
    let max = -Infinity;
    for (let y = 2; y < 510; y++) for (let x = 2; x < 1022; x++) {
      min = Math.min(min, r[y * 1024 + x]);
      max = Math.max(max, r[y * 1024 + x]);
    }
    expect(min).toBeGreaterThan(120);
    expect(max).toBeLessThan(135);
  });

  it('upscales bilinearly with half-pixel centers (a two-pixel ramp stays monotonic and symmetric)', () => {
    const img: RgbaImage = { width: 2, height: 1, data: new Uint8Array([0, 0, 0, 255, 200, 200, 200, 255]) };
    const [r] = resizeRgbToPlanar(img, 8, 1);
    expect(r[0]).toBe(0);
    expect(r[7]).toBe(200);
    for (let i = 1; i < 8; i++) expect(r[i]).toBeGreaterThanOrEqual(r[i - 1]);
    for (let i = 0; i < 8; i++) expect(r[i] + r[7 - i]).toBeCloseTo(200, 4);
  });

  it('resample weights sum to 1 for every output pixel', () => {
    for (const [inSize, outSize] of [[3000, 1024], [1024, 1024], [100, 1024], [7, 3]] as const) {
      const w = resampleWeights(inSize, outSize);
      for (let o = 0; o < outSize; o++) {
        let s = 0;
        for (let k = 0; k < w.count[o]; k++) s += w.weights[o * w.taps + k];
        expect(s).toBeCloseTo(1, 5);
        expect(w.first[o] + w.count[o]).toBeLessThanOrEqual(inSize);
      }
    }
  });
});
