/**
 * One undo/redo history that every document change goes through. Snapshots of immutable state:
 * cheap because unchanged parts are shared, and undo can never disagree with the document.
 */
export interface History<T> {
  readonly past: readonly T[];
  readonly present: T;
  readonly future: readonly T[];
  /** Label of each past entry's change, for the UI ("Undo add point"). */
  readonly labels: readonly string[];
  readonly redoLabels: readonly string[];
}

export const HISTORY_LIMIT = 200;

export function createHistory<T>(present: T): History<T> {
  return { past: [], present, future: [], labels: [], redoLabels: [] };
}

/** A user change: becomes one undo step and clears the redo stack. No-op changes add nothing. */
export function commit<T>(history: History<T>, next: T, label: string): History<T> {
  if (next === history.present) return history;
  const past = [...history.past, history.present].slice(-HISTORY_LIMIT);
  const labels = [...history.labels, label].slice(-HISTORY_LIMIT);
  return { past, present: next, future: [], labels, redoLabels: [] };
}

export function undo<T>(history: History<T>): History<T> {
  if (history.past.length === 0) return history;
  return {
    past: history.past.slice(0, -1),
    present: history.past[history.past.length - 1],
    future: [history.present, ...history.future],
    labels: history.labels.slice(0, -1),
    redoLabels: [history.labels[history.labels.length - 1], ...history.redoLabels],
  };
}

export function redo<T>(history: History<T>): History<T> {
  if (history.future.length === 0) return history;
  return {
    past: [...history.past, history.present],
    present: history.future[0],
    future: history.future.slice(1),
    labels: [...history.labels, history.redoLabels[0]],
    redoLabels: history.redoLabels.slice(1),
  };
}

/**
 * Applies the arrival of an async result (a prediction asked for at some revision) to every
 * snapshot that is waiting for it, without creating an undo step: undoing to a state that was
 * pending, or redoing into one, then shows the result instead of a spinner that never ends.
 */
export function settle<T>(history: History<T>, update: (snapshot: T) => T): History<T> {
  const present = update(history.present);
  const past = history.past.map(update);
  const future = history.future.map(update);
  const unchanged = present === history.present && past.every((s, i) => s === history.past[i]) && future.every((s, i) => s === history.future[i]);
  return unchanged ? history : { ...history, past, present, future };
}
