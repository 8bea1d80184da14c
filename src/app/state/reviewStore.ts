import { create } from 'zustand';
import { itemKey, WHOLE_QUEUE, type QueueItem, type QueueView } from './reviewOps';
import { forgetDecisions, recordDecision, type DecisionLog, type DecisionRecord } from './reviewPrecision';

/**
 * View state of the Review panel: whether it is open, the proposal it shows, how the queue is
 * filtered and ordered, the "accept all at or above" threshold the person chose (null: the default
 * measured on their decisions), and those decisions with the confidence each proposal had then.
 * Not undoable, not in the document: the review decisions themselves are.
 */

interface ReviewViewState {
  open: boolean;
  current: QueueItem | null;
  view: QueueView;
  /** Confidence (0–1) at or above which "accept all" accepts, when the person set one. */
  chosenThreshold: number | null;
  decisions: DecisionLog;
  /** Proposals (`imageId/objectId`) whose class the person changed in review: accepting them is not accepting them as proposed. */
  reclassed: ReadonlySet<string>;
  /** The class picker has the keyboard. */
  picking: boolean;
  setOpen(open: boolean): void;
  setCurrent(current: QueueItem | null): void;
  setView(change: Partial<QueueView>): void;
  /** A threshold of the person's own; null goes back to the measured default. */
  setThreshold(threshold: number | null): void;
  record(decision: DecisionRecord): void;
  /** Drops what was recorded on these proposals (they are waiting again, and about to be accepted unseen). */
  forget(items: readonly QueueItem[]): void;
  /** The person gave these objects a class (in Review, the object list or by key): accepted later, they were not right as proposed. */
  markReclassed(items: readonly QueueItem[]): void;
  setPicking(picking: boolean): void;
}

export const useReview = create<ReviewViewState>((set) => ({
  open: false,
  current: null,
  view: WHOLE_QUEUE,
  chosenThreshold: null,
  decisions: new Map(),
  reclassed: new Set(),
  picking: false,
  setOpen: (open) => set(open ? { open } : { open, current: null, picking: false }),
  setCurrent: (current) => set({ current }),
  setView: (change) => set((s) => ({ view: { ...s.view, ...change } })),
  setThreshold: (value) => set({ chosenThreshold: value === null ? null : Math.min(1, Math.max(0, value)) }),
  record: (decision) => set((s) => ({ decisions: recordDecision(s.decisions, decision) })),
  forget: (items) => set((s) => ({ decisions: forgetDecisions(s.decisions, items) })),
  markReclassed: (items) => set((s) => ({ reclassed: new Set([...s.reclassed, ...items.map(itemKey)]) })),
  setPicking: (picking) => set({ picking }),
}));
