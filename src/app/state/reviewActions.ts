import { promptOf } from './documentOps';
import { useEdit } from './editStore';
import type { StudioDocument } from './model';
import { assignClass, ensureClassNamed } from './classOps';
import { acceptAllAtLeast, inView, itemKey, objectOf, proposalsAtLeast, setReviewState, stepQueue, type QueueItem, type QueueView } from './reviewOps';
import { isProposal } from '../../annotations/review';
import { acceptAllAdvice, type AcceptAllAdvice } from '../../engine/learn/acceptAll';
import { standingDecisions } from './reviewPrecision';
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

const queueView = () => useReview.getState().view;

/**
 * Moves on from `from` after a decision: the proposal that followed it, or, when the queue is
 * ordered by what teaches the most, its head (the model may have re-scored the rest meanwhile).
 */
function advanceFrom(from: QueueItem): void {
  const view = queueView();
  show(stepQueue(currentDocument(), view.order === 'uncertain' ? null : from, 1, view));
}

/**
 * Keeps a decision on a proposal, with the confidence it had, for the precision "accept all" shows.
 * `reshaped`: accepted with a fixed shape, so not as proposed.
 */
function recordDecision(item: QueueItem, state: 'accepted' | 'rejected', reshaped = false): void {
  const object = objectOf(currentDocument(), item);
  if (!object || !isProposal(object)) return;
  const reclassed = useReview.getState().reclassed.has(itemKey(item));
  useReview.getState().record({ imageId: item.imageId, objectId: item.objectId, state, confidence: object.confidence, asProposed: !reclassed && !reshaped });
}

/** A decision taken from the object list, on any proposal (one undo step). */
export function reviewDecision(imageId: string, objectId: string, state: 'accepted' | 'rejected'): void {
  recordDecision({ imageId, objectId }, state);
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

/** What "accept all" would do now: its threshold and the precision measured there on the person's decisions. */
export function acceptAllNow(): AcceptAllAdvice {
  const { decisions, chosenThreshold } = useReview.getState();
  return acceptAllAdvice(standingDecisions(decisions, currentDocument()), chosenThreshold);
}

/** The class the picker gives the proposal shown: one there is, or a new one by name. */
export type ClassChoice = { readonly classId: number } | { readonly newName: string };

export const review = {
  open() {
    useReview.getState().setOpen(true);
    const current = shownItem();
    show(current && isProposal(objectOf(currentDocument(), current)!) ? current : stepQueue(currentDocument(), null, 1, queueView()));
  },
  close() {
    useReview.getState().setOpen(false);
  },
  toggle() {
    if (useReview.getState().open) review.close();
    else review.open();
  },
  next() {
    show(stepQueue(currentDocument(), shownItem(), 1, queueView()));
  },
  previous() {
    show(stepQueue(currentDocument(), shownItem(), -1, queueView()));
  },

  /** Filters or re-orders the queue; a proposal shown that the new view leaves out gives way to the next one it holds. */
  setView(change: Partial<QueueView>) {
    useReview.getState().setView(change);
    const view = queueView();
    const item = shownItem();
    const object = item && objectOf(currentDocument(), item);
    if (!(object && isProposal(object) && inView(object, view))) show(stepQueue(currentDocument(), view.order === 'uncertain' ? null : item, 1, view));
  },

  /**
   * Gives the proposal shown the class picked by type-ahead, creating it when it is new (one undo
   * step either way); the proposal stays shown, waiting for Y or Enter. False when none is shown.
   */
  reclass(choice: ClassChoice): boolean {
    const item = shownItem();
    if (!item) return false;
    const label = 'newName' in choice ? `new class ${choice.newName}` : 'set class';
    apply(label, (d) => {
      const { doc, classId } = 'newName' in choice ? ensureClassNamed(d, choice.newName) : { doc: d, classId: choice.classId };
      return assignClass(doc, item.imageId, [item.objectId], classId);
    });
    useReview.getState().markReclassed([item]);
    return true;
  },

  /**
   * Accepts the proposal shown — with the new shape when it is being fixed by a click (its refined
   * mask is accepted in its place) — and shows the next. False when there is nothing to accept.
   */
  accept: () =>
    decide((item) => {
      const prompt = promptOf(currentDocument(), item.imageId);
      const fixed = prompt.targetObjectId === item.objectId && prompt.candidates.length > 0;
      recordDecision(item, 'accepted', fixed);
      if (fixed) studio.acceptCandidate(item.imageId);
      else apply('accept proposal', (d) => setReviewState(d, item.imageId, [item.objectId], 'accepted'));
    }),

  /** Rejects the proposal shown (a fix under way is dropped) and shows the next. */
  reject: () =>
    decide((item) => {
      const fixing = promptOf(currentDocument(), item.imageId).targetObjectId === item.objectId;
      recordDecision(item, 'rejected');
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

  /**
   * Accepts every proposal of the queue (as filtered) at or above the panel's threshold, as one undo
   * step; returns how many. Not decisions the precision is measured on: nobody looked at each.
   */
  acceptAllAtThreshold(): number {
    const { threshold } = acceptAllNow();
    const view = queueView();
    const accepted = proposalsAtLeast(currentDocument(), threshold, view);
    const count = accepted.length;
    if (count === 0) return 0;
    // A decision undone on one of these would otherwise count again once it is accepted unseen.
    useReview.getState().forget(accepted);
    const from = shownItem();
    apply(`accept ${count} proposal${count === 1 ? '' : 's'} ≥ ${Math.round(threshold * 100)} %`, (d) => acceptAllAtLeast(d, threshold, view));
    const still = from && isProposal(objectOf(currentDocument(), from)!);
    show(still ? from : stepQueue(currentDocument(), from, 1, view));
    return count;
  },
};
