import { describe, expect, it } from 'vitest';
import { initialTouch, LONG_PRESS_MS, touchTransition, type TouchEvent, type TouchOutput, type TouchState } from './touchGesture';

function run(events: TouchEvent[], from: TouchState = initialTouch): { state: TouchState; outputs: TouchOutput[] } {
  let state = from;
  const outputs: TouchOutput[] = [];
  for (const event of events) {
    const next = touchTransition(state, event);
    state = next.state;
    outputs.push(...next.outputs);
  }
  return { state, outputs };
}

describe('touch gestures on the canvas', () => {
  it('a tap (a finger that barely moves) is one tap at the press point', () => {
    const { state, outputs } = run([
      { type: 'down', id: 1, at: [100, 100], time: 0 },
      { type: 'move', id: 1, at: [104, 103], time: 40 },
      { type: 'up', id: 1, at: [104, 103], time: 90 },
    ]);
    expect(outputs).toEqual([{ type: 'tap', at: [100, 100] }]);
    expect(state).toEqual(initialTouch);
  });

  it('holding still is a long press, once; lifting afterwards adds nothing', () => {
    const early = run([{ type: 'down', id: 1, at: [50, 60], time: 0 }, { type: 'tick', time: LONG_PRESS_MS - 1 }]);
    expect(early.outputs).toEqual([]);
    const { outputs } = run([
      { type: 'down', id: 1, at: [50, 60], time: 0 },
      { type: 'tick', time: LONG_PRESS_MS },
      { type: 'tick', time: LONG_PRESS_MS + 100 },
      { type: 'up', id: 1, at: [50, 60], time: LONG_PRESS_MS + 200 },
    ]);
    expect(outputs).toEqual([{ type: 'longPress', at: [50, 60] }]);
  });

  it('a drag is a box from the press point to where the finger lifts', () => {
    const { outputs } = run([
      { type: 'down', id: 1, at: [10, 10], time: 0 },
      { type: 'move', id: 1, at: [40, 30], time: 30 },
      { type: 'tick', time: LONG_PRESS_MS + 10 },
      { type: 'up', id: 1, at: [60, 50], time: 900 },
    ]);
    expect(outputs).toEqual([
      { type: 'dragStart', at: [10, 10] },
      { type: 'dragMove', start: [10, 10], at: [40, 30] },
      { type: 'dragEnd', start: [10, 10], at: [60, 50] },
    ]);
  });

  it('held still past the long-press time, then moved or lifted before the tick came: still a long press, never a tap or a box', () => {
    const moved = run([
      { type: 'down', id: 1, at: [10, 10], time: 0 },
      { type: 'move', id: 1, at: [80, 60], time: LONG_PRESS_MS + 5 },
      { type: 'move', id: 1, at: [90, 70], time: LONG_PRESS_MS + 20 },
      { type: 'tick', time: LONG_PRESS_MS + 30 },
      { type: 'up', id: 1, at: [90, 70], time: LONG_PRESS_MS + 40 },
    ]);
    expect(moved.outputs).toEqual([{ type: 'longPress', at: [10, 10] }]);
    const lifted = run([
      { type: 'down', id: 1, at: [10, 10], time: 0 },
      { type: 'up', id: 1, at: [12, 11], time: LONG_PRESS_MS + 5 },
    ]);
    expect(lifted.outputs).toEqual([{ type: 'longPress', at: [10, 10] }]);
    expect(lifted.state).toEqual(initialTouch);
  });

  it('two fingers pan by their midpoint and zoom by their spread; no point or box comes of it', () => {
    const { outputs, state } = run([
      { type: 'down', id: 1, at: [100, 100], time: 0 },
      { type: 'down', id: 2, at: [200, 100], time: 10 },
      { type: 'move', id: 2, at: [300, 100], time: 20 },
      { type: 'up', id: 1, at: [100, 100], time: 30 },
      { type: 'move', id: 2, at: [320, 140], time: 40 },
      { type: 'up', id: 2, at: [320, 140], time: 50 },
    ]);
    expect(outputs).toEqual([
      { type: 'pan', delta: [50, 0] },
      { type: 'zoom', center: [200, 100], factor: 2 },
    ]);
    expect(state).toEqual(initialTouch);
  });

  it('a second finger during a drag cancels the box and pinches instead', () => {
    const { outputs } = run([
      { type: 'down', id: 1, at: [0, 0], time: 0 },
      { type: 'move', id: 1, at: [30, 0], time: 10 },
      { type: 'down', id: 2, at: [130, 0], time: 20 },
    ]);
    expect(outputs.at(-1)).toEqual({ type: 'dragCancel' });
  });
});
