import { describe, expect, it } from 'vitest';
import { removeSmallRegions } from './everything/regions';
import { modelFrame } from './frame';
import { placeCrop, upsampleLogitsToCrop, upsampleLogitsToMask } from './upsample';

/** Pixels where two masks of one size differ (a loop: deep equality of megapixel arrays is slow). */
function differing(a: Uint8Array, b: Uint8Array): number {
  let n = Math.abs(a.length - b.length);
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) n++;
  return n;
}

/** Smooth logits: a few blobs (some touching the grid's edges and its padding), negative elsewhere. */
function blobs(seed: number, count: number): Float32Array {
  let s = seed;
  const random = () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
  const centres = Array.from({ length: count }, () => ({ x: random() * 280 - 12, y: random() * 280 - 12, r: 2 + random() * 30 }));
  const logits = new Float32Array(256 * 256);
  for (let y = 0; y < 256; y++) {
    for (let x = 0; x < 256; x++) {
      let v = -3;
      for (const c of centres) v = Math.max(v, 4 * (1 - Math.hypot(x - c.x, y - c.y) / c.r) + (random() - 0.5) * 3);
      logits[y * 256 + x] = v;
    }
  }
  return logits;
}

describe('upsampleLogitsToCrop: the upsampled mask over only the rectangle that can be positive', () => {
  const sizes: [number, number][] = [
    [600, 400],
    [1024, 683],
    [427, 640],
    [300, 300],
    [1600, 900],
    [37, 500],
  ];

  it('placed back into the image, equals the whole upsampled mask — also after small regions are removed on the crop alone', () => {
    let cases = 0;
    for (const [width, height] of sizes) {
      const frame = modelFrame(width, height);
      for (let seed = 1; seed <= 8; seed++) {
        const logits = blobs(seed * 7919 + width, 1 + (seed % 4));
        const whole = upsampleLogitsToMask(logits, frame);
        const crop = upsampleLogitsToCrop(logits, frame);
        if (!crop) {
          expect(whole.data.indexOf(1)).toBe(-1);
          continue;
        }
        cases++;
        expect(crop.mask.width * crop.mask.height).toBeLessThanOrEqual(width * height);
        expect(differing(placeCrop(crop, width, height).data, whole.data)).toBe(0);
        const minArea = Math.round((width * height) / 400);
        const cleaned = placeCrop({ ...crop, mask: removeSmallRegions(crop.mask, minArea) }, width, height);
        expect(differing(cleaned.data, removeSmallRegions(whole, minArea).data)).toBe(0);
      }
    }
    expect(cases).toBeGreaterThan(30);
  });

  it('is much smaller than the image for a small object, and undefined when no logit is positive', () => {
    const frame = modelFrame(1024, 768);
    const logits = new Float32Array(256 * 256).fill(-4);
    for (let y = 100; y < 110; y++) logits.fill(4, y * 256 + 50, y * 256 + 60);
    const crop = upsampleLogitsToCrop(logits, frame)!;
    expect(crop.mask.width).toBeLessThan(60);
    expect(crop.mask.height).toBeLessThan(60);
    expect(upsampleLogitsToCrop(new Float32Array(256 * 256).fill(-1), frame)).toBeUndefined();
  });
});
