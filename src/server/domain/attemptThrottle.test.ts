import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../db/connect';
import { TestClock } from './clock';
import { AttemptCounters, delayAfter, type CounterKey } from './attemptThrottle';

const policy = { freeAttempts: 3, baseDelayMs: 1000, maxDelayMs: 8000, forgetAfterMs: 60_000 };

describe('attempt counters (SQLite)', () => {
  let dir: string;
  let db: Db;
  let clock: TestClock;
  let counters: AttemptCounters;
  const key = (name: string, free = policy.freeAttempts): CounterKey => ({ scope: 'test', key: name, policy: { ...policy, freeAttempts: free } });

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mw-throttle-'));
    db = await openDatabase({ sqliteFile: join(dir, 'db.sqlite') });
    clock = new TestClock();
    clock.freeze();
    counters = new AttemptCounters(db, clock);
  });
  afterEach(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the delay doubles past the free attempts, up to the cap', () => {
    expect([3, 4, 5, 6, 7, 8].map((n) => delayAfter(policy, n))).toEqual([1000, 2000, 4000, 8000, 8000, 8000]);
    expect(delayAfter(policy, 2)).toBe(0);
  });

  it('lets the free attempts through, then doubles the wait; a key of its own is not affected', async () => {
    const waits: number[] = [];
    for (let i = 0; i < 7; i++) {
      const answer = await counters.admit([key('a')]);
      if (!answer.allowed) {
        waits.push(answer.retryAfterSeconds);
        clock.advance(answer.retryAfterSeconds * 1000);
        await counters.admit([key('a')]);
      }
    }
    expect(waits).toEqual([1, 2, 4, 8]);
    expect(await counters.admit([key('b')])).toEqual({ allowed: true });
  });

  it('admits only when every counter does, counting none otherwise; clears and forgets', async () => {
    expect((await counters.admit([key('x', 1), key('ip')])).allowed).toBe(true);
    expect(await counters.admit([key('x', 1), key('ip')])).toEqual({ allowed: false, retryAfterSeconds: 1 });
    // The refused attempt was counted nowhere: the address has used one of its three.
    expect((await counters.admit([key('ip')])).allowed).toBe(true);
    expect((await counters.admit([key('ip')])).allowed).toBe(true);
    expect((await counters.admit([key('ip')])).allowed).toBe(false);
    await counters.clear({ scope: 'test', key: 'ip' });
    expect((await counters.admit([key('ip')])).allowed).toBe(true);
    clock.advance(61_000);
    expect((await counters.admit([key('x', 1)])).allowed).toBe(true);
  });

  it('counts on arrival: of a burst sent at once, only the free attempts pass', async () => {
    const answers = await Promise.all(Array.from({ length: 10 }, () => counters.admit([key('burst')])));
    expect(answers.filter((a) => a.allowed)).toHaveLength(3);
  });
});
