import { create } from 'zustand';
import type { QueueItem } from './reviewOps';

/**
 * View state of the Review panel: whether it is open, the proposal it shows and the "accept all at or
 * above" threshold (kept in localStorage). Not undoable, not in the document: the review decisions are.
 */
const THRESHOLD_KEY = 'maskwright.reviewThreshold';
const DEFAULT_THRESHOLD = 0.8;

function loadThreshold(): number {
  const stored = typeof localStorage === 'undefined' ? null : localStorage.getItem(THRESHOLD_KEY);
  const value = stored === null ? NaN : Number(stored);
  return Number.isFinite(value) && value >= 0 && value <= 1 ? value : DEFAULT_THRESHOLD;
}

interface ReviewViewState {
  open: boolean;
  current: QueueItem | null;
  /** Confidence (0–1) at or above which "accept all" accepts. */
  threshold: number;
  setOpen(open: boolean): void;
  setCurrent(current: QueueItem | null): void;
  setThreshold(threshold: number): void;
}

export const useReview = create<ReviewViewState>((set) => ({
  open: false,
  current: null,
  threshold: loadThreshold(),
  setOpen: (open) => set(open ? { open } : { open, current: null }),
  setCurrent: (current) => set({ current }),
  setThreshold: (value) => {
    const threshold = Math.min(1, Math.max(0, value));
    if (typeof localStorage !== 'undefined') localStorage.setItem(THRESHOLD_KEY, String(threshold));
    set({ threshold });
  },
}));
