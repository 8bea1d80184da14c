/**
 * Per-account sliding-window limit (default 3 requests per second). Where the window lives follows
 * the deployment: with PostgreSQL (several processes) it is a database row, so every process sees
 * the same window; with embedded SQLite (one process, see the server README) it is process memory,
 * which answers in microseconds instead of a write transaction per request.
 */
import { sql } from 'kysely';
import type { Db } from '../db/connect';
import type { Clock } from './clock';

export type Admission = { admitted: true } | { admitted: false; retryAfterSeconds: number };

export interface RateLimiter {
  readonly limit: number;
  admit(accountId: string): Promise<Admission>;
}

/**
 * The rule both limiters apply to an account's recent admission times. Times more than a window in
 * the future (the clock went back) are dropped, as are those that left the window. Mutates and
 * returns `recent` with `now` appended when admitted.
 */
export function admitInWindow(recent: number[], now: number, limit: number, windowMs: number): { admission: Admission; recent: number[] } {
  const kept = recent.filter((t) => t > now - windowMs && t <= now + windowMs);
  if (kept.length >= limit) {
    const oldest = Math.min(...kept);
    return { admission: { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil((oldest + windowMs - now) / 1000)) }, recent: kept };
  }
  kept.push(now);
  return { admission: { admitted: true }, recent: kept };
}

/** The window in a `rate_limits` row, read and written under a row lock (PostgreSQL) or the write lock (SQLite). */
export class DatabaseRateLimiter implements RateLimiter {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    readonly limit: number,
    readonly windowMs = 1000,
  ) {}

  async admit(accountId: string): Promise<Admission> {
    if (!Number.isFinite(this.limit)) return { admitted: true };
    return this.db.transaction(async (trx) => {
      // One statement creates the row if needed, locks it (the upsert's update takes the row lock
      // on PostgreSQL; SQLite holds the write lock already) and returns the window.
      const row = await trx
        .insertInto('rate_limits')
        .values({ account_id: accountId, recent: '[]' })
        .onConflict((oc) => oc.column('account_id').doUpdateSet({ recent: sql`rate_limits.recent` }))
        .returning('recent')
        .executeTakeFirstOrThrow();
      const { admission, recent } = admitInWindow(JSON.parse(row.recent) as number[], this.clock.now(), this.limit, this.windowMs);
      if (admission.admitted) {
        await trx.updateTable('rate_limits').set({ recent: JSON.stringify(recent) }).where('account_id', '=', accountId).execute();
      }
      return admission;
    }, 'relaxed');
  }
}

/** The window in this process's memory: for the single-process SQLite deployment. */
export class InProcessRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, number[]>();
  private admissionsSinceSweep = 0;

  constructor(
    private readonly clock: Clock,
    readonly limit: number,
    readonly windowMs = 1000,
  ) {}

  async admit(accountId: string): Promise<Admission> {
    if (!Number.isFinite(this.limit)) return { admitted: true };
    const now = this.clock.now();
    this.sweep(now);
    const { admission, recent } = admitInWindow(this.windows.get(accountId) ?? [], now, this.limit, this.windowMs);
    this.windows.set(accountId, recent);
    return admission;
  }

  /** Accounts idle for a window are forgotten, so memory follows the active accounts only. */
  private sweep(now: number): void {
    if (++this.admissionsSinceSweep < 1024) return;
    this.admissionsSinceSweep = 0;
    for (const [accountId, recent] of this.windows) {
      if (recent.every((t) => t <= now - this.windowMs)) this.windows.delete(accountId);
    }
  }

  /** Accounts with a window held (tests). */
  get trackedAccounts(): number {
    return this.windows.size;
  }
}

/** PostgreSQL → shared window in the database; SQLite → this process's memory. */
export function createRateLimiter(db: Db, clock: Clock, limit: number): RateLimiter {
  return db.dialect === 'postgres' ? new DatabaseRateLimiter(db, clock, limit) : new InProcessRateLimiter(clock, limit);
}
