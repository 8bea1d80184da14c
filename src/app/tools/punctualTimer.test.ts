import { describe, expect, it } from 'vitest';
import { LATE_AFTER_MS, MAX_RECHECKS, punctualTimer, RECHECK_MS, type Clock } from './punctualTimer';

/** A clock the test moves by hand: `advance` runs the timers that come due, `busy` jumps past them like a blocked page. */
function handClock() {
  let now = 0;
  let timers: Array<{ at: number; run: () => void; id: number }> = [];
  let nextId = 1;
  const clock: Clock = {
    now: () => now,
    setTimeout: (run, ms) => {
      const id = nextId++;
      timers.push({ at: now + ms, run, id });
      return id;
    },
    clearTimeout: (id) => {
      timers = timers.filter((t) => t.id !== id);
    },
  };
  const runDue = () => {
    for (;;) {
      const due = timers.filter((t) => t.at <= now).sort((a, b) => a.at - b.at)[0];
      if (!due) return;
      timers = timers.filter((t) => t !== due);
      due.run();
    }
  };
  return {
    clock,
    /** Time passes with the page free: every timer runs at its time. */
    advance(ms: number) {
      const end = now + ms;
      for (;;) {
        const next = timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
        if (!next) break;
        now = next.at;
        runDue();
      }
      now = end;
    },
    /** The page is blocked for `ms`; the timers that came due run late, all at once. */
    busy(ms: number) {
      now += ms;
      runDue();
    },
  };
}

describe('punctualTimer', () => {
  it('runs the callback at its time when the page is free, once', () => {
    const hand = handClock();
    let runs = 0;
    punctualTimer(() => runs++, undefined, hand.clock).start(550);
    hand.advance(549);
    expect(runs).toBe(0);
    hand.advance(1);
    expect(runs).toBe(1);
    hand.advance(5000);
    expect(runs).toBe(1);
  });

  it('a timer that fires late waits for a check on time before running the callback', () => {
    const hand = handClock();
    let runs = 0;
    punctualTimer(() => runs++, undefined, hand.clock).start(550);
    hand.busy(550 + LATE_AFTER_MS + 300);
    expect(runs).toBe(0);
    hand.advance(RECHECK_MS);
    expect(runs).toBe(1);
  });

  it('while the caller says its input still arrives late, the callback waits; then it runs', () => {
    const hand = handClock();
    let runs = 0;
    let inputLate = true;
    punctualTimer(() => runs++, () => inputLate, hand.clock).start(550);
    hand.advance(550 + RECHECK_MS);
    expect(runs).toBe(0);
    inputLate = false;
    hand.advance(RECHECK_MS);
    expect(runs).toBe(1);
  });

  it('a page that stays busy still gets the callback after a few checks', () => {
    const hand = handClock();
    let runs = 0;
    punctualTimer(() => runs++, undefined, hand.clock).start(550);
    hand.busy(1000);
    for (let i = 0; i < MAX_RECHECKS; i++) hand.busy(RECHECK_MS + LATE_AFTER_MS + 1);
    expect(runs).toBe(1);
  });

  it('stop and a new start cancel what was pending', () => {
    const hand = handClock();
    let runs = 0;
    const timer = punctualTimer(() => runs++, undefined, hand.clock);
    timer.start(550);
    hand.advance(300);
    timer.start(550);
    hand.advance(300);
    expect(runs).toBe(0);
    timer.stop();
    hand.advance(5000);
    expect(runs).toBe(0);
  });
});
