/**
 * Per-account sliding-window limit (default 3 requests per second), kept in the database so that
 * every server process sees the same window. A row holds the admission times inside the window;
 * it is read and written under a row lock (PostgreSQL) or the single writer lock (SQLite).
 */
import { sql } from 'kysely';
import type { Db } from '../db/connect';
import type { Clock } from './clock';

export type Admission = { admitted: true } | { admitted: false; retryAfterSeconds: number };

export class RateLimiter {
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
      const now = this.clock.now();
      const recent = (JSON.parse(row.recent) as number[]).filter((t) => t > now - this.windowMs && t <= now + this.windowMs);
      if (recent.length >= this.limit) {
        const oldest = Math.min(...recent);
        return { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000)) };
      }
      recent.push(now);
      await trx.updateTable('rate_limits').set({ recent: JSON.stringify(recent) }).where('account_id', '=', accountId).execute();
      return { admitted: true } as const;
    }, 'relaxed');
  }
}
