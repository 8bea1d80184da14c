import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../db/connect';
import { TestClock } from './clock';
import { admitInWindow, createRateLimiter, DatabaseRateLimiter, InProcessRateLimiter, type RateLimiter } from './rateLimit';

describe('admitInWindow', () => {
  it('admits up to the limit inside the window, then says when the oldest admission leaves it', () => {
    let recent: number[] = [];
    for (const now of [1000, 1300, 1600]) {
      const step = admitInWindow(recent, now, 3, 1000);
      expect(step.admission).toEqual({ admitted: true });
      recent = step.recent;
    }
    expect(admitInWindow(recent, 1700, 3, 1000).admission).toEqual({ admitted: false, retryAfterSeconds: 1 });
    // 1000 left the window at 2000: admitted again.
    expect(admitInWindow(recent, 2001, 3, 1000).admission).toEqual({ admitted: true });
  });

  it('drops admissions more than a window in the future (the clock went back)', () => {
    expect(admitInWindow([9000, 9100, 9200], 1000, 3, 1000).admission).toEqual({ admitted: true });
  });
});

describe.each(['in-process', 'database'] as const)('%s rate limiter', (kind) => {
  let dir: string;
  let db: Db;
  const clock = new TestClock();
  let limiter: RateLimiter;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mw-rate-'));
    db = await openDatabase({ sqliteFile: join(dir, 'db.sqlite') });
    limiter = kind === 'database' ? new DatabaseRateLimiter(db, clock, 3) : new InProcessRateLimiter(clock, 3);
    clock.freeze();
  });
  afterAll(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('holds 3 per second per account, independently per account', async () => {
    const results = [];
    for (let i = 0; i < 4; i++) results.push((await limiter.admit('alice')).admitted);
    expect(results).toEqual([true, true, true, false]);
    expect((await limiter.admit('bob')).admitted).toBe(true);
    clock.advance(1000);
    expect((await limiter.admit('alice')).admitted).toBe(true);
  });
});

describe('InProcessRateLimiter memory', () => {
  it('forgets accounts idle for a window', async () => {
    const clock = new TestClock();
    clock.freeze();
    const limiter = new InProcessRateLimiter(clock, 3);
    for (let i = 0; i < 1000; i++) await limiter.admit(`account-${i}`);
    expect(limiter.trackedAccounts).toBe(1000);
    clock.advance(5000);
    for (let i = 0; i < 100; i++) await limiter.admit('active');
    expect(limiter.trackedAccounts).toBe(1);
  });
});

describe('createRateLimiter', () => {
  it('keeps the window in memory on SQLite (one process) and in the database on PostgreSQL', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mw-rate-'));
    const db = await openDatabase({ sqliteFile: join(dir, 'db.sqlite') });
    try {
      expect(createRateLimiter(db, new TestClock(), 3)).toBeInstanceOf(InProcessRateLimiter);
      expect(createRateLimiter({ ...db, dialect: 'postgres' }, new TestClock(), 3)).toBeInstanceOf(DatabaseRateLimiter);
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
