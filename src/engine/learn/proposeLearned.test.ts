import { describe, expect, it } from 'vitest';
import { GROUND, RACCOON, toy, toyRaccoonModel } from '../../../test/support/toyRaccoons';
import type { BinaryMask } from '../types';
import { boxMask, maskBox } from './descriptors';
import { LEARNED_SOURCE, LearnedClasses } from './learnedClasses';
import { classifyCandidates, DETECTOR_SOURCE, lessonsOfLabelledPhoto, proposeLearned, rankCandidates, type Candidate } from './proposeLearned';

const W = 40;
const H = 40;
const square = (x0: number, y0: number, size: number): BinaryMask => boxMask({ x0, y0, x1: x0 + size, y1: y0 + size }, W, H);


describe('proposeLearned', () => {
  it('asks nothing of the engine before a class is taught', async () => {
    let asked = 0;
    const proposals = await proposeLearned(
      new LearnedClasses({ kinds: ['appearance'] }),
      { candidates: async () => (asked++, []), describe: async () => (asked++, []) },
      { detectorKnows: () => true },
    );
    expect(proposals).toEqual([]);
    expect(asked).toBe(0);
  });

  it('proposes the candidates that look like the taught class, once per object, and not the background', async () => {
    const candidates: Candidate[] = [{ mask: square(2, 2, 20) }, { mask: square(3, 3, 19) }, { mask: square(25, 25, 10) }];
    const descriptors = [toy(RACCOON), toy(RACCOON, 0.05), toy(GROUND)];
    const asked: string[][] = [];
    const proposals = await proposeLearned(
      toyRaccoonModel(),
      { candidates: async (names) => (asked.push([...names]), candidates), describe: async (masks) => masks.map((m) => descriptors[candidates.findIndex((c) => c.mask === m)]) },
      { detectorKnows: (name) => name === 'cat' },
    );
    // "raccoon" is no detector's class: no text detection is asked for.
    expect(asked).toEqual([[]]);
    expect(proposals).toHaveLength(1);
    expect(proposals[0].classId).toBe('raccoon');
    expect(proposals[0].probability).toBeGreaterThan(0.5);
    expect(proposals[0].box.x1).toBeLessThanOrEqual(22);
  });

  it('never repeats an object of its class already on the photo, nor proposes a region around it', () => {
    const model = toyRaccoonModel();
    const candidates: Candidate[] = [{ mask: square(2, 2, 20) }, { mask: square(0, 0, 24) }, { mask: square(26, 26, 12) }];
    const descriptors = [toy(RACCOON), toy(RACCOON, 0.05), toy(RACCOON, -0.05)];
    const proposals = classifyCandidates(model, candidates, descriptors, undefined, [{ classId: 'raccoon', box: { x0: 2, y0: 2, x1: 22, y1: 22 } }]);
    expect(proposals.map((p) => p.box)).toEqual([{ x0: 26, y0: 26, x1: 38, y1: 38 }]);
    // Another class's object does not stand in the way.
    expect(classifyCandidates(model, candidates, descriptors, undefined, [{ classId: 'sign', box: { x0: 2, y0: 2, x1: 22, y1: 22 } }])).toHaveLength(2);
  });

  it('ranks a kind of part the person rejected below the show threshold once taught, and keeps each proposal’s relation for its outcome', () => {
    const model = toyRaccoonModel();
    // The head: mostly, not wholly, inside the raccoon, so the suppression keeps it and the ranker decides.
    const candidates: Candidate[] = [{ mask: square(2, 2, 20) }, { mask: boxMask({ x0: 12, y0: 4, x1: 26, y1: 14 }, W, H) }];
    const descriptors = [toy(RACCOON), toy(RACCOON, -0.7)];
    const before = classifyCandidates(model, candidates, descriptors);
    expect(before.map((p) => p.mask)).toEqual([candidates[0].mask, candidates[1].mask]);
    for (let photo = 0; photo < 40; photo++) {
      const [whole, head] = classifyCandidates(model, candidates, descriptors, 0);
      model.recordProposalOutcomes([
        { relation: whole.relation, correct: true },
        { relation: head.relation, correct: false },
      ]);
    }
    const after = classifyCandidates(model, candidates, descriptors);
    expect(after.map((p) => p.mask)).toEqual([candidates[0].mask]);
    expect(classifyCandidates(model, candidates, descriptors, 0)[1].probability).toBeLessThan(0.3);
  });

  it("ranks with each candidate's ring: once taught that regions continuing past their edge were rejected, such a one is not shown", () => {
    const model = toyRaccoonModel();
    const endsAtEdge = { ...toy(RACCOON), ring: [0.05, 0.1, 0.9] };
    const continuesPastEdge = { ...toy(RACCOON), ring: [0.85, 0.9, 0.9] };
    const lone: Candidate[] = [{ mask: square(2, 2, 20) }];
    expect(classifyCandidates(model, lone, [continuesPastEdge])).toHaveLength(1);
    for (let photo = 0; photo < 40; photo++) {
      const [whole] = classifyCandidates(model, lone, [endsAtEdge], 0);
      const [part] = classifyCandidates(model, lone, [continuesPastEdge], 0);
      model.recordProposalOutcomes([
        { relation: whole.relation, correct: true },
        { relation: part.relation, correct: false },
      ]);
    }
    expect(classifyCandidates(model, lone, [continuesPastEdge])).toEqual([]);
    expect(classifyCandidates(model, lone, [endsAtEdge])).toHaveLength(1);
  });

  it("ranks with each candidate's mask quality: once taught that masks SAM was unsure of were rejected, such a one is not shown", () => {
    const model = toyRaccoonModel();
    // Two separate raccoon-like regions on each photo, SAM sure of one mask only (either first).
    const photo = (unsureFirst: boolean): Candidate[] => {
      const sure = { mask: square(2, 2, 14), quality: 0.95 };
      const unsure = { mask: square(22, 22, 14), quality: 0.55 };
      return unsureFirst ? [unsure, sure] : [sure, unsure];
    };
    const descriptors = [toy(RACCOON), toy(RACCOON)];
    expect(classifyCandidates(model, photo(true), descriptors)).toHaveLength(2);
    for (let k = 0; k < 40; k++) {
      const candidates = photo(k % 2 === 0);
      const ranked = classifyCandidates(model, candidates, descriptors, 0);
      model.recordProposalOutcomes(ranked.map((p) => ({ relation: p.relation, correct: (candidates.find((c) => c.mask === p.mask)?.quality ?? 0) > 0.9 })));
    }
    for (const unsureFirst of [true, false]) {
      const shown = classifyCandidates(model, photo(unsureFirst), descriptors);
      expect(shown.map((p) => p.mask)).toEqual([square(2, 2, 14)]);
    }
  });

  it('a display map decides nothing: the same proposals are shown in the same order, only the number displayed differs', () => {
    // Taught alike, one displaying through a map of its own; wholes shown as sure were right 60 % of the time.
    const plain = toyRaccoonModel();
    const displaying = LearnedClasses.fromJSON(plain.toJSON(), { displayCalibration: 'platt' });
    const candidates: Candidate[] = [{ mask: square(2, 2, 20) }, { mask: boxMask({ x0: 12, y0: 4, x1: 26, y1: 14 }, W, H) }, { mask: square(24, 24, 14) }];
    const descriptors = [toy(RACCOON), toy(RACCOON, -0.7), toy(RACCOON, -0.3)];
    for (const model of [plain, displaying]) {
      for (let photo = 0; photo < 40; photo++) {
        const [whole, ...rest] = rankCandidates(model, candidates.map((c) => ({ box: maskBox(c.mask)! })), descriptors, 0);
        model.recordProposalOutcomes([{ relation: whole.relation, correct: photo % 5 < 3 }, ...rest.map((r) => ({ relation: r.relation, correct: false }))]);
      }
    }
    const boxes = candidates.map((c) => ({ box: maskBox(c.mask)! }));
    const everyOne = rankCandidates(displaying, boxes, descriptors, 0);
    const moved = everyOne.find((p) => Math.abs(p.probability - p.rankingProbability) > 0.02)!;
    expect(moved).toBeDefined();
    // A threshold between what decides and what is displayed: the display map must not move a proposal across it.
    const showFrom = (moved.probability + moved.rankingProbability) / 2;
    const shown = (model: LearnedClasses) => rankCandidates(model, boxes, descriptors, showFrom);
    expect(shown(displaying).map((p) => [p.index, p.rankingProbability])).toEqual(shown(plain).map((p) => [p.index, p.rankingProbability]));
    expect(shown(displaying).map((p) => p.probability)).not.toEqual(shown(plain).map((p) => p.probability));
  });

  it('a detector’s word for a class of the person’s stands in where the learned class is less probable, under its own calibration', () => {
    const model = new LearnedClasses({ kinds: ['appearance'], l2: 1e-3 });
    model.learnAll([{ descriptor: toy(RACCOON), classId: 'cat' }, ...[0, 0.1, 0.2].map((s) => ({ descriptor: toy(GROUND, s), classId: null }))]);
    const [proposal] = classifyCandidates(model, [{ mask: square(0, 0, 10), label: 'cat', detectorScore: 0.99 }], [toy(GROUND)]);
    expect(proposal.classId).toBe('cat');
    expect(proposal.source).toBe(DETECTOR_SOURCE);
    expect(proposal.raw).toBe(0.99);
  });

  it('a detector’s word keeps competing once the class is well taught: the learned head of many classes stays unsure long after', () => {
    const model = new LearnedClasses({ kinds: ['appearance'], l2: 1e-3 });
    model.learnAll([
      ...[0, 0.02, 0.04, 0.06, 0.08].map((s) => ({ descriptor: toy(RACCOON, s), classId: 'cat' })),
      ...[0, 0.1, 0.2].map((s) => ({ descriptor: toy(GROUND, s), classId: null })),
    ]);
    expect(model.examplesOf('cat')).toBe(5);
    const [proposal] = classifyCandidates(model, [{ mask: square(0, 0, 10), label: 'cat', detectorScore: 0.99 }], [toy(GROUND)]);
    expect(proposal).toMatchObject({ classId: 'cat', source: DETECTOR_SOURCE, raw: 0.99 });
  });

  it('the detector’s word is ranked with what the person’s labels say of its class there: of two equal scores, the one the learned classes call a cat first', () => {
    const model = new LearnedClasses({ kinds: ['appearance'], l2: 1e-3 });
    model.learnAll([
      ...[0, 0.02, 0.04].map((s) => ({ descriptor: toy(RACCOON, s), classId: 'cat' })),
      ...[0, 0.1, 0.2].map((s) => ({ descriptor: toy(GROUND, s), classId: null })),
    ]);
    const learnedCat = model.classify(toy(RACCOON))[0].raw;
    const learnedGround = model.classify(toy(GROUND))[0].raw;
    // Earlier decisions: the detector's "cat" at 0.6 was right where the learned classes agreed, wrong where they did not;
    // the learned classes' own proposals were always wrong, so the detector's word is the one proposed.
    for (let i = 0; i < 30; i++) {
      model.recordDecision({ raw: learnedCat, correct: false }, LEARNED_SOURCE);
      model.recordDecision({ raw: learnedGround, correct: false }, LEARNED_SOURCE);
      model.recordDecision({ raw: 0.6, evidence: learnedCat, correct: i % 10 < 8 }, DETECTOR_SOURCE);
      model.recordDecision({ raw: 0.6, evidence: learnedGround, correct: i % 10 < 1 }, DETECTOR_SOURCE);
    }
    const candidates: Candidate[] = [
      { mask: square(0, 0, 10), label: 'cat', detectorScore: 0.6 },
      { mask: square(25, 25, 10), label: 'cat', detectorScore: 0.6 },
    ];
    const [first] = classifyCandidates(model, candidates, [toy(GROUND), toy(RACCOON)], 0);
    expect(first).toMatchObject({ classId: 'cat', source: DETECTOR_SOURCE, raw: 0.6 });
    expect(first.box.x0).toBe(25);
    expect(first.evidence).toBeCloseTo(learnedCat, 9);
    expect(first.probability).toBeGreaterThan(model.calibrated(DETECTOR_SOURCE, 0.6, learnedGround) + 0.3);
  });

  it('a detector’s word stands in for a class the person declared but has not taught yet, as the learn eval measured', () => {
    const model = toyRaccoonModel();
    const cat: Candidate[] = [{ mask: square(25, 25, 10), label: 'cat', detectorScore: 0.99 }];
    expect(classifyCandidates(model, cat, [toy(GROUND)])).toEqual([]);
    const [proposal] = classifyCandidates(model, cat, [toy(GROUND)], undefined, [], ['raccoon', 'cat']);
    expect(proposal).toMatchObject({ classId: 'cat', source: DETECTOR_SOURCE, raw: 0.99 });
  });

  it('a labelled photo teaches its matching candidates as the class and every other one as background', () => {
    const raccoon = square(5, 5, 20);
    const lessons = lessonsOfLabelledPhoto(
      [{ mask: square(6, 6, 19) }, { mask: square(5, 5, 6) }, { mask: square(28, 28, 10) }, { mask: square(30, 2, 8) }],
      [{ classId: 'raccoon', mask: raccoon }, { classId: 'sign', box: { x0: 30, y0: 2, x1: 38, y1: 10 } }],
    );
    expect(lessons).toEqual(['raccoon', null, null, 'sign']);
  });

  it('teaches a whole-photo region as background even when its box matches a box the person drew around a large object', () => {
    const drawn = { x0: 0, y0: 4, x1: 40, y1: 34 };
    const wholePhoto = boxMask({ x0: 0, y0: 0, x1: W, y1: H }, W, H);
    const animal = boxMask({ x0: 2, y0: 6, x1: 38, y1: 32 }, W, H);
    expect(lessonsOfLabelledPhoto([{ mask: wholePhoto }, { mask: animal }], [{ classId: 'raccoon', box: drawn }])).toEqual([null, 'raccoon']);
  });
});
