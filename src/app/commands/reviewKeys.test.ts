import { beforeEach, describe, expect, it } from 'vitest';
import { runKey } from './registry';
import { useEdit } from '../state/editStore';
import { loadReviewSession, shownProposal, stateOf } from '../state/reviewSession';
import { useReview } from '../state/reviewStore';
import { currentDocument } from '../state/studioStore';

/** The keys as the window's keydown handler passes them (only what the handler reads). */
const press = (key: string, mods: { shiftKey?: boolean; ctrlKey?: boolean } = {}) =>
  runKey({ key, shiftKey: false, ctrlKey: false, metaKey: false, altKey: false, ...mods })?.id ?? null;

describe('review keys, run through the command registry', () => {
  beforeEach(loadReviewSession);

  it('R opens and closes Review; the review keys act only while it is open', () => {
    expect(press('y')).toBe(null);
    expect(press('r')).toBe('review-toggle');
    expect(useReview.getState().open).toBe(true);
    expect(shownProposal()).toBe('p1');
    expect(press('r', { ctrlKey: true })).toBe(null);
    press('R');
    expect(useReview.getState().open).toBe(false);
  });

  it('Y and Enter accept, Delete rejects, J and K walk, Shift+Y accepts all at or above the threshold, Esc closes', () => {
    press('r');
    press('j');
    expect(shownProposal()).toBe('p2');
    press('k');
    expect(shownProposal()).toBe('p1');
    press('y');
    expect(stateOf('a', 'p1')).toBe('accepted');
    press('Delete');
    expect(stateOf('a', 'p2')).toBe('rejected');
    expect(shownProposal()).toBe('p3');
    press('Enter');
    expect(stateOf('b', 'p3')).toBe('accepted');
    press('Escape');
    expect(useReview.getState().open).toBe(false);

    loadReviewSession();
    press('r');
    press('Y', { shiftKey: true });
    expect([stateOf('a', 'p1'), stateOf('a', 'p2'), stateOf('b', 'p3')]).toEqual(['accepted', 'unreviewed', 'accepted']);
  });

  it('Delete still deletes other selected objects, and C selects the proposal shown for a fix', () => {
    press('r');
    useEdit.getState().select(['p2']);
    expect(press('Delete')).toBe('delete-selection');
    expect(stateOf('a', 'p1')).toBe('unreviewed');
    expect(currentDocument().objects.a.map((o) => o.id)).not.toContain('p2');
    press('c');
    expect(useEdit.getState().selection).toEqual(['p1']);
    expect(press('Delete')).toBe('review-reject');
    expect(stateOf('a', 'p1')).toBe('rejected');
  });

  it('/ hands the keyboard to the class picker while a proposal is shown, and only then', () => {
    expect(press('/')).toBe(null);
    press('r');
    expect(press('/')).toBe('review-pick-class');
    expect(useReview.getState().picking).toBe(true);
    useReview.getState().setPicking(false);
    press('Y', { shiftKey: true });
    press('y');
    expect(shownProposal()).toBe(null);
    expect(press('/')).toBe(null);
    expect(useReview.getState().picking).toBe(false);
  });
});
