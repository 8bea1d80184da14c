import { beforeEach, describe, expect, it } from 'vitest';
import { useEdit } from './editStore';
import type { Annotation } from '../../annotations/annotation';
import { review, reviewDecision } from './reviewActions';
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
