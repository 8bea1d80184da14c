import { promptOf } from './documentOps';
import { useEdit } from './editStore';
import type { StudioDocument } from './model';
import { acceptAllAtLeast, objectOf, proposalsAtLeast, setReviewState, stepQueue, type QueueItem } from './reviewOps';
import { isProposal } from '../../annotations/review';
import { useReview } from './reviewStore';
import { currentDocument, studio, useStudio } from './studioStore';
import { useTool } from './toolStore';

/**
 * The review queue's named actions (the Review panel's buttons and keys): each decision is one undo
 * step through the history; which proposal is shown is view state (reviewStore). The canvas zooms to
 * the proposal shown (StudioCanvas).
 */

const apply = (label: string, change: (doc: StudioDocument) => StudioDocument) => useStudio.getState().apply(label, change);

/** The tools that refine a selected object: a click or box re-prompts it, the brush and eraser paint it. */
const FIXING_TOOLS = ['positive', 'negative', 'box', 'brush', 'eraser'];

/** The proposal shown, while it is still a proposal of the document (undo or a delete may change that). */
function shownItem(): QueueItem | null {
  const { current } = useReview.getState();
  return current && objectOf(currentDocument(), current) ? current : null;
}

function show(item: QueueItem | null): void {
  useReview.getState().setCurrent(item);
  if (item && currentDocument().activeImageId !== item.imageId) studio.setActiveImage(item.imageId);
}

/** Moves on from `from` after a decision (the next proposal in session order, or none left). */
function advanceFrom(from: QueueItem): void {
  show(stepQueue(currentDocument(), from, 1));
}

/** A decision taken from the object list, on any proposal (one undo step). */
export function reviewDecision(imageId: string, objectId: string, state: 'accepted' | 'rejected'): void {
  apply(state === 'accepted' ? 'accept proposal' : 'reject proposal', (d) => setReviewState(d, imageId, [objectId], state));
}

/** A decision on the proposal shown, then the next one; false when none is shown. */
function decide(decision: (item: QueueItem) => void): boolean {
  const item = shownItem();
  if (!item) return false;
  decision(item);
  useEdit.getState().select([]);
  advanceFrom(item);
  return true;
}

export const review = {
  open() {
    useReview.getState().setOpen(true);
    const current = shownItem();
    show(current && isProposal(objectOf(currentDocument(), current)!) ? current : stepQueue(currentDocument(), null, 1));
  },
  close() {
    useReview.getState().setOpen(false);
  },
  toggle() {
    if (useReview.getState().open) review.close();
    else review.open();
  },
  next() {
    show(stepQueue(currentDocument(), shownItem(), 1));
  },
  previous() {
    show(stepQueue(currentDocument(), shownItem(), -1));
  },

  /**
   * Accepts the proposal shown — with the new shape when it is being fixed by a click (its refined
   * mask is accepted in its place) — and shows the next. False when there is nothing to accept.
   */
  accept: () =>
    decide((item) => {
      const prompt = promptOf(currentDocument(), item.imageId);
      if (prompt.targetObjectId === item.objectId && prompt.candidates.length > 0) studio.acceptCandidate(item.imageId);
      else apply('accept proposal', (d) => setReviewState(d, item.imageId, [item.objectId], 'accepted'));
    }),

  /** Rejects the proposal shown (a fix under way is dropped) and shows the next. */
  reject: () =>
    decide((item) => {
      const fixing = promptOf(currentDocument(), item.imageId).targetObjectId === item.objectId;
      apply('reject proposal', (d) => setReviewState(d, item.imageId, [item.objectId], 'rejected'));
      if (fixing) studio.clearPrompt(item.imageId);
    }),

  /** Selects the proposal shown so a click (point or box tool) or the brush refines it; accepting then takes the fixed shape. */
  fix(): boolean {
    const item = shownItem();
    if (!item) return false;
    if (currentDocument().activeImageId !== item.imageId) studio.setActiveImage(item.imageId);
    useEdit.getState().select([item.objectId]);
    if (!FIXING_TOOLS.includes(useTool.getState().tool)) useTool.getState().setTool('positive');
    return true;
  },

  /** Accepts every proposal of the session at or above the panel's threshold, as one undo step; returns how many. */
  acceptAllAtThreshold(): number {
    const { threshold } = useReview.getState();
    const count = proposalsAtLeast(currentDocument(), threshold).length;
    if (count === 0) return 0;
    const from = shownItem();
    apply(`accept ${count} proposal${count === 1 ? '' : 's'} ≥ ${Math.round(threshold * 100)} %`, (d) => acceptAllAtLeast(d, threshold));
    const still = from && isProposal(objectOf(currentDocument(), from)!);
    show(still ? from : stepQueue(currentDocument(), from, 1));
    return count;
  },
};
