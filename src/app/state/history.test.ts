import { describe, expect, it } from 'vitest';
import { commit, createHistory, redo, settle, undo } from './history';

describe('history', () => {
  it('undoes and redoes in order with labels', () => {
    let h = createHistory(0);
    h = commit(h, 1, 'one');
    h = commit(h, 2, 'two');
    expect(h.labels).toEqual(['one', 'two']);
    h = undo(h);
    expect(h.present).toBe(1);
    expect(h.redoLabels).toEqual(['two']);
    h = undo(h);
    expect(h.present).toBe(0);
    h = undo(h);
    expect(h.present).toBe(0);
    h = redo(h);
    h = redo(h);
    expect(h.present).toBe(2);
    expect(h.labels).toEqual(['one', 'two']);
  });

  it('drops the redo stack on a new change and ignores no-op changes', () => {
    let h = commit(commit(createHistory('a'), 'b', 'b'), 'c', 'c');
    h = undo(h);
    h = commit(h, 'd', 'd');
    expect(h.future).toEqual([]);
    expect(h.past).toEqual(['a', 'b']);
    expect(commit(h, h.present, 'same')).toBe(h);
  });

  it('settles an async result into every waiting snapshot without a new step', () => {
    type S = { rev: number; result?: string };
    let h = createHistory<S>({ rev: 0 });
    h = commit(h, { rev: 1 }, 'click');
    h = undo(h); // the user undid before the result arrived
    const apply = (s: S) => (s.rev === 1 && !s.result ? { ...s, result: 'mask' } : s);
    h = settle(h, apply);
    expect(h.present).toEqual({ rev: 0 });
    h = redo(h);
    expect(h.present).toEqual({ rev: 1, result: 'mask' });
    expect(settle(h, (s) => s)).toBe(h);
  });
});
