import { describe, expect, it } from 'vitest';
import { LOW_RES_SIZE, modelFrame } from '../../src/engine/frame';
import { containsPositiveClicks, cropImage, objectRoi, OUTSIDE_LOGIT, pasteMask, regionIou, remapLowResLogits, wholeImage } from './zoom';

const settings = { expansion: 1.4, minCropSize: 0 };

describe('objectRoi', () => {
  it('expands the box of prediction and positive clicks around its centre, clamped to the image', () => {
    const width = 100;
    const height = 80;
    const prediction = new Uint8Array(width * height);
    for (let y = 30; y < 40; y++) for (let x = 40; x < 60; x++) prediction[y * width + x] = 1;
    // Box x 40..59 (20 wide), y 30..39 (10 high): 28 x 14 after expansion around (49.5, 34.5).
    expect(objectRoi(prediction, width, height, [], settings)).toEqual({ x0: 36, y0: 28, x1: 64, y1: 42 });
    // A positive click outside the prediction extends the box; a negative one does not.
    const clicks = [{ x: 5, y: 35, positive: true }, { x: 99, y: 79, positive: false }];
    const withClick = objectRoi(prediction, width, height, clicks, settings)!;
    expect(withClick.x0).toBe(0);
    expect(withClick.x1).toBe(71); // box 5..59 → centre 32, 77 wide
    // RITM's expand_bbox rounds both ends of centre ± size/2, so the inclusive box is one pixel wider.
    expect(objectRoi(prediction, width, height, [], { expansion: 1, minCropSize: 60 })).toEqual({ x0: 20, y0: 5, x1: 80, y1: 65 });
    expect(objectRoi(new Uint8Array(width * height), width, height, [], settings)).toBeNull();
  });
});

describe('region helpers', () => {
  it('computes IoU of inclusive rectangles and checks positive clicks', () => {
    expect(regionIou({ x0: 0, y0: 0, x1: 9, y1: 9 }, { x0: 5, y0: 0, x1: 14, y1: 9 })).toBeCloseTo(50 / 150);
    const region = { x0: 10, y0: 10, x1: 20, y1: 20 };
    expect(containsPositiveClicks(region, [{ x: 20, y: 10, positive: true }, { x: 0, y: 0, positive: false }])).toBe(true);
    expect(containsPositiveClicks(region, [{ x: 21, y: 10, positive: true }])).toBe(false);
  });

  it('crops pixels and pastes a crop mask back in place', () => {
    const image = { width: 4, height: 3, data: Uint8Array.from({ length: 48 }, (_, i) => i) };
    const region = { x0: 1, y0: 1, x1: 2, y1: 2 };
    const crop = cropImage(image, region);
    expect([crop.width, crop.height]).toEqual([2, 2]);
    expect(Array.from(crop.data.subarray(0, 4))).toEqual([20, 21, 22, 23]);
    expect(Array.from(pasteMask(Uint8Array.from([1, 0, 0, 1]), region, 4, 3))).toEqual([0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0]);
  });
});

describe('remapLowResLogits', () => {
  /** Logits of a linear ramp in image x, as a model frame over `region` would see them. */
  function rampLogits(region: { x0: number; y0: number; x1: number; y1: number }): Float32Array {
    const frame = modelFrame(region.x1 - region.x0 + 1, region.y1 - region.y0 + 1);
    const out = new Float32Array(LOW_RES_SIZE * LOW_RES_SIZE);
    for (let i = 0; i < LOW_RES_SIZE; i++) {
      for (let j = 0; j < LOW_RES_SIZE; j++) out[i * LOW_RES_SIZE + j] = ((j + 0.5) * 4) / frame.scaleX + region.x0 - 300;
    }
    return out;
  }

  it('is the identity for the same region', () => {
    const region = wholeImage(640, 480);
    const logits = rampLogits(region);
    expect(remapLowResLogits(logits, region, region)).toEqual(logits);
  });

  it('maps a crop so that every cell keeps the value at its image position', () => {
    const full = wholeImage(640, 480);
    const crop = { x0: 200, y0: 100, x1: 449, y1: 299 };
    const remapped = remapLowResLogits(rampLogits(full), full, crop);
    const expected = rampLogits(crop);
    const frame = modelFrame(250, 200);
    // Compare over the crop's own (unpadded) part of the grid, away from the clamped edges.
    for (let i = 0; i < Math.floor(frame.resizedHeight / 4); i++) {
      for (let j = 1; j < Math.floor(frame.resizedWidth / 4) - 1; j++) {
        expect(remapped[i * LOW_RES_SIZE + j]).toBeCloseTo(expected[i * LOW_RES_SIZE + j], 3);
      }
    }
    // Going back from the crop to the full image: outside the crop nothing was predicted.
    const back = remapLowResLogits(expected, crop, full);
    expect(back[0]).toBe(OUTSIDE_LOGIT);
  });
});
