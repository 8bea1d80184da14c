import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DETECTOR_CONCEPTS, fitDescriptor, type RegionDescriptor } from '../../src/engine/learn/descriptors';
import { LearnedClasses } from '../../src/engine/learn/learnedClasses';
import { bestGuess, DETECTOR_SOURCE } from '../../src/engine/learn/proposeLearned';
import { detectionsFile, withFitFromDir, type CachedDetections } from './detectionsCache';
import type { CachedPhoto, CachedProposal } from './learnCache';
import { crowdedSmallClasses, hideFromDetectors, unknownClassesOf } from './unknownClasses';

const CUP = DETECTOR_CONCEPTS.indexOf('cup');
const BOWL = DETECTOR_CONCEPTS.indexOf('bowl');

/** A region the detectors call `scores` (concept → score), nothing else. */
function described(scores: Record<string, number>): RegionDescriptor {
  const detectors = DETECTOR_CONCEPTS.map((c) => scores[c] ?? 0);
  return { sam: [1, 0], detectors, appearance: [0.5], backbone: [], fit: [0, 0, 0.9] };
}

function proposal(box: CachedProposal['box'], scores: Record<string, number>, named?: { label: string; detectorScore: number }): CachedProposal {
  return { box, area: 100, confidence: 0.9, source: named ? 'detector' : 'grid', ...(named ?? {}), descriptor: described(scores), overlaps: [0.8] };
}

const cupBox = { x0: 10, y0: 10, x1: 30, y1: 30 };
const bowlBox = { x0: 50, y0: 50, x1: 90, y1: 80 };
const photo: CachedPhoto = {
  version: 2,
  file: 'table.jpg',
  width: 100,
  height: 100,
  instances: [{ categoryId: 47, crowd: false, boxOnly: false, box: cupBox, descriptor: described({ cup: 0.8, bowl: 0.2 }) }],
  proposals: [
    proposal(cupBox, { cup: 0.8, bowl: 0.2 }, { label: 'cup', detectorScore: 0.8 }),
    proposal(bowlBox, { bowl: 0.7 }, { label: 'bowl', detectorScore: 0.7 }),
    proposal({ x0: 12, y0: 12, x1: 28, y1: 28 }, { cup: 0.6 }),
  ],
  ms: { embed: 0, everything: 0, detect: 0, describe: 0 },
};

describe('hideFromDetectors', () => {
  const hidden = new Set(['cup']);

  it('leaves no detector word for a hidden class: no proposal named by it, its column zero in every region, other classes untouched', () => {
    for (const keepBoxes of [false, true]) {
      const blind = hideFromDetectors(photo, hidden, keepBoxes);
      expect(blind.proposals.some((p) => p.label === 'cup')).toBe(false);
      for (const region of [...blind.proposals, ...blind.instances]) expect(region.descriptor.detectors[CUP]).toBe(0);
      const bowl = blind.proposals.find((p) => p.label === 'bowl')!;
      expect(bowl.detectorScore).toBe(0.7);
      expect(bowl.descriptor.detectors[BOWL]).toBe(0.7);
      expect(blind.instances[0].descriptor.detectors[BOWL]).toBe(0.2);
    }
  });

  it("drops the proposal a hidden class's detector box prompted, or keeps it unnamed when asked", () => {
    expect(hideFromDetectors(photo, hidden).proposals.map((p) => p.box)).toEqual([bowlBox, photo.proposals[2].box]);
    const kept = hideFromDetectors(photo, hidden, true).proposals;
    expect(kept).toHaveLength(3);
    expect(kept[0]).not.toHaveProperty('detectorScore');
    expect(kept[0].box).toEqual(cupBox);
  });

  it('gives the product rule no detector guess of a hidden class (a model that knows cups only from the detector would say "cup" without it)', () => {
    const model = new LearnedClasses({ kinds: ['appearance'] });
    // The proposals look like the background taught here, so only a detector's word could name them.
    model.learnAll([{ descriptor: { ...described({}), appearance: [-3] }, classId: 'bowl' }, { descriptor: described({}), classId: null }]);
    const guesses = (p: CachedPhoto) => p.proposals.map((q) => bestGuess(model, q, q.descriptor, ['cup', 'bowl']));
    expect(guesses(photo).some((g) => g?.classId === 'cup' && g.source === DETECTOR_SOURCE)).toBe(true);
    expect(guesses(hideFromDetectors(photo, hidden, true)).some((g) => g?.classId === 'cup')).toBe(false);
  });

  it("makes the fit descriptor without the hidden class's boxes", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'unknown-classes-'));
    const detections: CachedDetections = [
      { label: 'cup', score: 0.9, box: cupBox, detector: 'centernet' },
      { label: 'bowl', score: 0.7, box: bowlBox, detector: 'centernet' },
    ];
    await writeFile(detectionsFile(dir, photo.file), JSON.stringify(detections));
    const [seen] = await withFitFromDir([photo], dir);
    const [blind] = await withFitFromDir([photo], dir, hidden);
    const bowlOnly = [{ ...detections[1], classIndex: -1 }];
    expect(seen.instances[0].descriptor.fit![2]).toBeCloseTo(0.9, 6);
    expect(blind.instances[0].descriptor.fit).toEqual(fitDescriptor(bowlOnly, cupBox));
    expect(blind.proposals.map((p) => p.descriptor.fit)).toEqual(photo.proposals.map((p) => fitDescriptor(bowlOnly, p.box)));
  });
});

describe('crowdedSmallClasses', () => {
  const categories = [
    { id: 1, name: 'apple', supercategory: 'food' },
    { id: 2, name: 'table', supercategory: 'furniture' },
    { id: 3, name: 'lonely fork', supercategory: 'kitchen' },
    { id: 4, name: 'rare bead', supercategory: 'kitchen' },
  ];
  const instance = (category_id: number, image_id: number, area: number, iscrowd = 0) => ({ image_id, category_id, iscrowd, segmentation: [], bbox: [0, 0, 1, 1], area });
  const annotations = [
    // apples: small and 4 a photo, 24 in all
    ...Array.from({ length: 24 }, (_, i) => instance(1, 1 + (i % 6), 300)),
    // tables: 4 a photo but large
    ...Array.from({ length: 24 }, (_, i) => instance(2, 1 + (i % 6), 20_000)),
    // forks: small but one a photo
    ...Array.from({ length: 24 }, (_, i) => instance(3, 1 + i, 200)),
    // beads: small and crowded, but too few to measure; a crowd region is no instance
    ...Array.from({ length: 12 }, (_, i) => instance(4, 1 + (i % 3), 50)),
    instance(4, 1, 50, 1),
  ];

  it('picks the classes whose median instance is small, several a photo, with enough instances', () => {
    expect(crowdedSmallClasses({ categories, annotations })).toEqual(['apple']);
    expect(unknownClassesOf('crowded-small', { categories, annotations })).toEqual(['apple']);
  });

  it('takes named classes, and refuses a name the data lacks', () => {
    expect(unknownClassesOf('apple, table', { categories, annotations })).toEqual(['apple', 'table']);
    expect(() => unknownClassesOf('saucer', { categories, annotations })).toThrow(/saucer/);
  });
});
