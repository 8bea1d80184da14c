import { describe, expect, it } from 'vitest';
import { DEFAULT_SEGMENTATION_OPTIONS, MIN_SPECK_PIXELS, segmentationOptions, speckArea, type SegmentationOptions } from './options';
import { maskOutline } from './polygons';
import type { BinaryMask } from './types';

describe('segmentation options', () => {
  it('fills every field left out, or given as undefined, from the one set of defaults', () => {
    expect(segmentationOptions()).toEqual(DEFAULT_SEGMENTATION_OPTIONS);
    expect(segmentationOptions({ tolerance: undefined, multimask: undefined })).toEqual(DEFAULT_SEGMENTATION_OPTIONS);
    // Every field chosen, each away from its default: the caller's choice is what comes back.
    const chosen: SegmentationOptions = {
      tolerance: 0,
      multimask: false,
      speckFraction: 0,
      mirrorAverage: !DEFAULT_SEGMENTATION_OPTIONS.mirrorAverage,
    };
    expect(segmentationOptions({ ...chosen })).toEqual(chosen);
    expect(segmentationOptions({ mirrorAverage: undefined }).mirrorAverage).toBe(DEFAULT_SEGMENTATION_OPTIONS.mirrorAverage);
  });

  it('cannot be changed by a caller that holds the defaults', () => {
    expect(Object.isFrozen(DEFAULT_SEGMENTATION_OPTIONS)).toBe(true);
    const options = segmentationOptions();
    (options as { tolerance: number }).tolerance = 9;
    expect(DEFAULT_SEGMENTATION_OPTIONS.tolerance).not.toBe(9);
  });

  it('treats a part as a speck below the share of the mask, never below the pixel floor', () => {
    expect(speckArea(100)).toBe(MIN_SPECK_PIXELS);
    expect(speckArea(1_000_000)).toBe(Math.round(1_000_000 * DEFAULT_SEGMENTATION_OPTIONS.speckFraction));
    expect(speckArea(1_000_000, 0.01)).toBe(10_000);
    expect(speckArea(1_000_000, 0)).toBe(MIN_SPECK_PIXELS);
  });

  it('reach the outline: the speck share decides which parts survive', () => {
    // A 40×40 square and a 3×3 speck: 9 px is under 1 % of the mask but above the 4 px floor.
    const width = 60;
    const data = new Uint8Array(width * width);
    for (let y = 5; y < 45; y++) for (let x = 5; x < 45; x++) data[y * width + x] = 1;
    for (let y = 50; y < 53; y++) for (let x = 50; x < 53; x++) data[y * width + x] = 1;
    const mask: BinaryMask = { width, height: width, data };
    expect(maskOutline(mask)).toHaveLength(2);
    expect(maskOutline(mask, { speckFraction: 0.01 })).toHaveLength(1);
  });
});
