/**
 * labelLikeMine's rule for what may be proposed on an image: on a photo it learned from as labelled,
 * the regions taught as background there are never proposed there (e2e/appLearnedClasses.spec.ts runs
 * the whole command; this is the rule alone, on masks drawn here).
 */
import { describe, expect, it } from 'vitest';
import type { RegionDescriptor } from '../../engine/learn/descriptors';
import type { BinaryMask } from '../../engine/types';
import { proposableCandidates, type TracedCandidate } from './labelLikeMine';

const SIDE = 100;
/** A mask of the photo with the rectangle [x0, x1) × [y0, y1) set. */
function rectangle(x0: number, y0: number, x1: number, y1: number): BinaryMask {
  const data = new Uint8Array(SIDE * SIDE);
  for (let y = y0; y < y1; y++) data.fill(1, y * SIDE + x0, y * SIDE + x1);
  return { width: SIDE, height: SIDE, data };
}
const candidate = (mask: BinaryMask): TracedCandidate => ({ mask, polygons: [] });
/** A descriptor that says which candidate it belongs to. */
const descriptorOf = (n: number): RegionDescriptor => ({ sam: [n], detectors: [], appearance: [], backbone: [] });

const raccoon = rectangle(10, 10, 40, 40);
const found = {
  candidates: [
    candidate(rectangle(11, 10, 40, 41)), // the raccoon the person labelled, found again
    candidate(rectangle(60, 60, 90, 90)), // a region the person left unlabelled: background
    candidate(rectangle(10, 10, 20, 20)), // a part of the raccoon: not the raccoon
    candidate(rectangle(0, 0, SIDE, SIDE)), // the whole photo
  ],
  descriptors: [0, 1, 2, 3].map(descriptorOf),
};

describe('what Label all like my labels may propose on an image', () => {
  it('on a photo learned from as labelled, only the regions matching my objects, each with its own descriptor', () => {
    const kept = proposableCandidates(found, [{ classId: '5', mask: raccoon }], true);
    expect(kept.candidates).toEqual([found.candidates[0]]);
    expect(kept.descriptors).toEqual([descriptorOf(0)]);
  });

  it('with a box I drew, the region filling it, not the photo around it', () => {
    const kept = proposableCandidates(found, [{ classId: '5', box: { x0: 10, y0: 10, x1: 40, y1: 40 } }], true);
    expect(kept.candidates).toEqual([found.candidates[0]]);
  });

  it('on a photo not learned from as labelled, every region found', () => {
    expect(proposableCandidates(found, [{ classId: '5', mask: raccoon }], false)).toEqual(found);
    expect(proposableCandidates(found, [], false)).toEqual(found);
  });
});
