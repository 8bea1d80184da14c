import { beforeEach, describe, expect, it } from 'vitest';
import { useEdit } from './editStore';
import type { Annotation } from '../../annotations/annotation';
import { acceptAllNow, review, reviewDecision } from './reviewActions';
import { addObjects } from './documentOps';
import { classActions } from './editActions';
import { proposedBy } from '../../annotations/review';
import { standingDecisions } from './reviewPrecision';
import { loadReviewSession, shownProposal as shown, square, stateOf as state } from './reviewSession';
import { useReview } from './reviewStore';
import { currentDocument, studio, useStudio } from './studioStore';
import { useTool } from './toolStore';

describe('review queue actions', () => {
  beforeEach(loadReviewSession);

  it('opens on the active image’s first proposal; accept and reject move on, across images; each is one undo step', () => {
    review.open();
    expect(shown()).toBe('p1');
    review.accept();
    expect(state('a', 'p1')).toBe('accepted');
    expect(shown()).toBe('p2');
    review.reject();
    expect(state('a', 'p2')).toBe('rejected');
    // The next proposal is on image b: the studio goes there.
    expect(shown()).toBe('p3');
    expect(currentDocument().activeImageId).toBe('b');
    expect(useStudio.getState().history.labels.slice(-3)).toEqual(['accept proposal', 'reject proposal', 'switch image']);
    studio.undo();
    studio.undo();
    expect(state('a', 'p2')).toBe('unreviewed');
    studio.undo();
    expect(state('a', 'p1')).toBe('unreviewed');
  });

  it('next and previous walk without deciding; nothing left to review shows nothing', () => {
    review.open();
    review.next();
    expect(shown()).toBe('p2');
    review.previous();
    review.previous();
    expect(shown()).toBe('p3');
    review.accept();
    review.accept();
    review.accept();
    expect(shown()).toBeNull();
    expect(review.accept()).toBe(false);
  });

  it('fix selects the proposal for a refining tool; accept after a fix by click takes the refined shape', () => {
    review.open();
    review.fix();
    expect(useEdit.getState().selection).toEqual(['p1']);
    expect(useTool.getState().tool).toBe('positive');
    // A click on a selected object begins its refinement (promptEdits.ts); its answer is a new candidate.
    const refined: Annotation['polygons'] = square(70);
    useStudio.getState().apply('refine', (d) => ({
      ...d,
      prompts: { ...d.prompts, a: { ...d.prompts.a, revision: 9, targetObjectId: 'p1', status: 'done', candidates: [{ polygons: refined, score: 0.97, area: 100 }], selected: 0 } },
    }));
    review.accept();
    const fixed = currentDocument().objects.a.find((o) => o.id === 'p1')!;
    expect(fixed.review).toEqual({ state: 'accepted', source: 'text-prompt' });
    expect(fixed.polygons).toBe(refined);
    expect(currentDocument().prompts.a.candidates).toEqual([]);
    expect(shown()).toBe('p2');
  });

  it('accepts all proposals at or above the threshold in one undo step, and the list’s own buttons decide too', () => {
    review.open();
    expect(review.acceptAllAtThreshold()).toBe(2);
    expect([state('a', 'p1'), state('a', 'p2'), state('b', 'p3')]).toEqual(['accepted', 'unreviewed', 'accepted']);
    expect(shown()).toBe('p2');
    studio.undo();
    expect([state('a', 'p1'), state('b', 'p3')]).toEqual(['unreviewed', 'unreviewed']);
    reviewDecision('a', 'p2', 'rejected');
    expect(state('a', 'p2')).toBe('rejected');
    useReview.getState().setThreshold(0.99);
    expect(review.acceptAllAtThreshold()).toBe(0);
  });
});

describe('review queue: class by type-ahead, filters, order and measured precision', () => {
  beforeEach(loadReviewSession);
  const cat = () => currentDocument().classes.find((c) => c.name === 'cat')?.id;
  const decided = () => standingDecisions(useReview.getState().decisions, currentDocument());

  it('gives the proposal shown a class, or a new one, as one undo step; it stays shown until accepted', () => {
    review.open();
    expect(review.reclass({ newName: 'cat' })).toBe(true);
    expect(currentDocument().objects.a[0].classId).toBe(cat());
    expect(shown()).toBe('p1');
    expect(state('a', 'p1')).toBe('unreviewed');
    expect(useStudio.getState().history.labels.at(-1)).toBe('new class cat');
    review.next();
    review.reclass({ classId: cat()! });
    expect(currentDocument().classes).toHaveLength(1);
    studio.undo();
    studio.undo();
    expect(currentDocument().classes).toEqual([]);
    expect(currentDocument().objects.a.map((o) => o.classId)).toEqual([null, null]);
  });

  it('records each decision with its confidence; a re-classed or re-shaped accept is not right as proposed; bulk accepts are not decisions', () => {
    review.open();
    review.reclass({ newName: 'cat' });
    review.accept();
    review.reject();
    expect(decided()).toEqual([
      { probability: 0.9, correct: false },
      { probability: 0.5, correct: false },
    ]);
    review.accept();
    expect(decided()).toContainEqual({ probability: 0.95, correct: true });
    studio.undo();
    expect(decided()).toHaveLength(2);
    useReview.getState().setThreshold(0);
    review.acceptAllAtThreshold();
    expect(decided()).toHaveLength(2);
  });

  it('a class given with C then a digit, or from the object list, also makes the accept not as proposed', () => {
    classActions.add('cat');
    review.open();
    review.fix();
    classActions.pickByKey(1);
    review.accept();
    classActions.assign('a', ['p2'], cat()!);
    review.accept();
    expect(decided()).toEqual([
      { probability: 0.9, correct: false },
      { probability: 0.5, correct: false },
    ]);
  });

  it('walks the queue as filtered and ordered; a filter leaving out the proposal shown moves on; accept all takes only what the filter shows', () => {
    review.open();
    review.setView({ order: 'uncertain' });
    // Least certain first: p2 (50 %), p1 (90 %), p3 (95 %); after a decision, the head again.
    expect(shown()).toBe('p1');
    review.next();
    expect(shown()).toBe('p3');
    review.previous();
    review.previous();
    expect(shown()).toBe('p2');
    review.reject();
    expect(shown()).toBe('p1');
    review.setView({ order: 'image', minConfidence: 0.92 });
    expect(shown()).toBe('p3');
    review.setView({ minConfidence: 0, classFilter: 'unlabelled', maxConfidence: 0.92 });
    expect(shown()).toBe('p1');
    expect(review.acceptAllAtThreshold()).toBe(1);
    expect([state('a', 'p1'), state('b', 'p3')]).toEqual(['accepted', 'unreviewed']);
  });

  it('"accept all" defaults to the lowest threshold sure of ≥ 95 % precision, once there are enough decisions', () => {
    useReview.getState().setThreshold(null);
    // Sixty proposals at 60 % the person accepts as they are, ten at 30 % they reject.
    const proposals = (count: number, confidence: number, prefix: string) =>
      Array.from({ length: count }, (_, i) => ({ id: `${prefix}${i}`, label: `${prefix}${i}`, classId: null, confidence, visible: true, polygons: square(i), source: 'text' as const, review: proposedBy('text-prompt') }));
    useStudio.getState().apply('more', (d) => addObjects(d, 'b', [...proposals(60, 0.6, 'good'), ...proposals(10, 0.3, 'bad')]));
    expect(acceptAllNow()).toMatchObject({ threshold: 0.8, measuredDefault: undefined, precision: undefined });
    // Ten of ten right is not yet sure of 95 %.
    for (let i = 0; i < 10; i++) reviewDecision('b', `good${i}`, 'accepted');
    expect(acceptAllNow()).toMatchObject({ threshold: 0.8, measuredDefault: undefined, noDefaultBecause: 'few-decisions' });
    for (let i = 10; i < 60; i++) reviewDecision('b', `good${i}`, 'accepted');
    for (let i = 0; i < 10; i++) reviewDecision('b', `bad${i}`, 'rejected');
    expect(acceptAllNow()).toMatchObject({ threshold: 0.6, measuredDefault: 0.6, precision: 1, count: 60 });
    // At that default, "accept all" takes p1 (90 %) and p3 (95 %), not p2 (50 %).
    expect(review.acceptAllAtThreshold()).toBe(2);
  });
});
