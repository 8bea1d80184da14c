import { describe, expect, it } from 'vitest';
import { modelFrame } from './frame';
import { logitAtPixel, maskArea, upsampleLogitsToMask } from './upsample';

const AREA = 256 * 256;

describe('upsampleLogitsToMask', () => {
  it('maps the unpadded region of the 256 grid onto the original image and thresholds at 0', () => {
    // 600×400 image: resized 1024×683, so the image covers 256 × 170.75 cells of the grid.
    const frame = modelFrame(600, 400);
    const logits = new Float32Array(256 * 256).fill(-5);
    // Left half of the grid positive: columns 0..127 → image x < 300.
    for (let y = 0; y < 256; y++) logits.fill(5, y * 256, y * 256 + 128);
    const mask = upsampleLogitsToMask(logits, frame);
    expect([mask.width, mask.height]).toEqual([600, 400]);
    for (const y of [0, 200, 399]) {
      expect(mask.data[y * 600 + 298]).toBe(1);
      expect(mask.data[y * 600 + 301]).toBe(0);
    }
    expect(maskArea(mask)).toBe(300 * 400);
  });

  it('does not leak the padding into the last image rows', () => {
    const frame = modelFrame(600, 400);
    const logits = new Float32Array(256 * 256).fill(5);
    for (let y = 171; y < 256; y++) logits.fill(-5, y * 256, (y + 1) * 256); // padding rows negative
    const mask = upsampleLogitsToMask(logits, frame);
    expect(maskArea(mask)).toBe(600 * 400);
  });
});

describe('logitAtPixel', () => {
  it('says the same as the upsampled mask at every pixel it is asked about', () => {
    const odd = modelFrame(333, 517);
    const logits = new Float32Array(AREA).map((_, i) => Math.sin(i / 97) * 3 + Math.cos(i / 13));
    const mask = upsampleLogitsToMask(logits, odd);
    for (let y = 0; y < odd.height; y += 7) {
      for (let x = 0; x < odd.width; x += 5) {
        expect(logitAtPixel(logits, odd, x, y) > 0).toBe(mask.data[y * odd.width + x] === 1);
      }
    }
  });
});
