/**
 * A timer that runs its callback only when the page is keeping up. A timer that fires late means the
 * page was busy (a long render, a collection, another process on the CPU), and input the finger made
 * meanwhile may still be on its way: the browser holds a touch move until the page has answered the
 * one before it. So a late timer, or one that fires while the caller says its input is still arriving
 * late (`behind`), checks again shortly, and runs the callback once a check finds the page caught up
 * (or after a few tries, so a page that stays busy still gets it).
 */
export const LATE_AFTER_MS = 50;
export const RECHECK_MS = 50;
export const MAX_RECHECKS = 6;

export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const browserClock: Clock = {
  now: () => performance.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export function punctualTimer(callback: () => void, behind: () => boolean = () => false, clock: Clock = browserClock): { start(delayMs: number): void; stop(): void } {
  let handle: unknown = null;
  const stop = () => {
    if (handle !== null) clock.clearTimeout(handle);
    handle = null;
  };
  const arm = (delayMs: number, rechecks: number) => {
    const due = clock.now() + delayMs;
    handle = clock.setTimeout(() => {
      handle = null;
      if ((clock.now() - due > LATE_AFTER_MS || behind()) && rechecks < MAX_RECHECKS) arm(RECHECK_MS, rechecks + 1);
      else callback();
    }, delayMs);
  };
  return {
    start(delayMs) {
      stop();
      arm(delayMs, 0);
    },
    stop,
  };
}
