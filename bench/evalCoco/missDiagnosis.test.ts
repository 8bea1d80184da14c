import { describe, expect, it } from 'vitest';
import { boxRegion } from './metrics';
import { crowdingBand, patchBand, tallyMisses, type MissTally } from './missDiagnosis';

const W = 256;
const H = 256;
const rect = (x0: number, y0: number, x1: number, y1: number) => boxRegion({ x0, y0, x1, y1 }, W, H);
function instance(x0: number, y0: number, x1: number, y1: number) {
  return { region: rect(x0, y0, x1, y1), crowd: false, area: (x1 - x0) * (y1 - y0), bbox: [x0, y0, x1 - x0, y1 - y0] };
}

describe('why segment everything missed an instance', () => {
  it("measures an instance's longer side in the photo encoder's 16 px patches at 1024 px", () => {
    // A 256 px photo is shown 4× larger to the encoder: 3 px → 12 px (under a patch), 6 px → 1.5, 40 px → 10.
    expect(patchBand([0, 0, 3, 2], W, H)).toBe('< 1 patch');
    expect(patchBand([0, 0, 2, 6], W, H)).toBe('1-2 patches');
    expect(patchBand([0, 0, 40, 10], W, H)).toBe('>= 8 patches');
    expect(crowdingBand(4)).toBe('< 5 in photo');
    expect(crowdingBand(20)).toBe('>= 20 in photo');
  });

  it('tells a proposal ranked past the 100 shown from a poor mask and from nothing near, and skips what was found', () => {
    const found = instance(0, 0, 10, 10);
    const rankedOut = instance(50, 50, 60, 60);
    const poor = instance(100, 100, 120, 120);
    const nothing = instance(200, 200, 210, 210);
    const decoys = Array.from({ length: 98 }, () => ({ region: rect(150, 150, 190, 190), score: 0.9 }));
    const proposals = [
      { region: rect(0, 0, 10, 10), score: 0.95 },
      { region: rect(100, 100, 109, 120), score: 0.8 }, // 180 of 400 pixels: IoU 0.45
      ...decoys,
      { region: rect(50, 50, 60, 60), score: 0.1 }, // the 101st: not shown
    ];
    const tally: MissTally = {};
    tallyMisses(tally, [found, rankedOut, poor, nothing], proposals, W, H);
    expect(tally.small?.reason).toEqual({ 'ranked out': 1, 'poor mask (iou 0.3-0.5)': 1, 'nothing near': 1 });
    expect(tally.small?.crowding).toEqual({ '< 5 in photo': 3 });
    // 10 px → 2.5 patches, 20 px → 5.
    expect(tally.small?.patches).toEqual({ '2-4 patches': 2, '4-8 patches': 1 });
    expect(tally.medium).toBeUndefined();
  });
});
