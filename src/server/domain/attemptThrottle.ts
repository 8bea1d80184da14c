/**
 * Throttles for password guessing and sign-up floods: a few attempts are free, then each further
 * one must wait a delay that doubles with every attempt (1 s, 2 s, 4 s, … up to a cap) — answered
 * 429 with Retry-After, without even checking the password. An attempt is counted when it
 * arrives, not when it fails, so twenty guesses sent at once cannot all slip through while the
 * first password hash is still being computed; a successful login clears its count. A counter left
 * alone for `forgetAfterMs` starts afresh.
 *
 * The counters are rows of `attempt_counters` (SQLite and PostgreSQL alike), read and written in
 * one transaction per attempt under the rows' locks: every process behind one database counts the
 * same attempts, so N processes do not give N times the free attempts.
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../db/connect';
import type { Clock } from './clock';

export interface ThrottlePolicy {
  /** Attempts allowed before any delay. */
  freeAttempts: number;
  /** Delay imposed by the first attempt beyond the free ones; doubles with each further one. */
  baseDelayMs: number;
  maxDelayMs: number;
  forgetAfterMs: number;
}

export type ThrottleAnswer = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** One counter an attempt is counted under: its kind (`scope`, with its policy) and the key within it. */
export interface CounterKey {
  scope: string;
  key: string;
  policy: ThrottlePolicy;
  /** Counted, but never the reason for a refusal: a measure other rules read (`waiting`). */
  countOnly?: boolean;
}

/** The delay that `attempts` attempts (counted so far) impose on the next one. */
export function delayAfter(policy: ThrottlePolicy, attempts: number): number {
  const beyond = attempts - policy.freeAttempts;
  if (beyond < 0) return 0;
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(beyond, 40));
}

interface CounterRow {
  attempts: number;
  last_at: number;
  blocked_until: number;
}

/** Counters are found by a digest: no email or client address is stored in the clear. */
function counterId(key: Pick<CounterKey, 'scope' | 'key'>): string {
  return createHash('sha256').update(`${key.scope}\u0000${key.key}`).digest('base64url');
}

export class AttemptCounters {
  private admissionsSinceSweep = 0;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /**
   * Admits an attempt only when every counter admits it, then counts it under all of them; else
   * the longest wait, and nothing is counted. The rows are locked in one order (by id) so that two
   * attempts sharing counters cannot deadlock.
   */
  async admit(keys: CounterKey[]): Promise<ThrottleAnswer> {
    const now = this.clock.now();
    const counters = keys.map((key) => ({ ...key, id: counterId(key) })).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const answer = await this.db.transaction(async (trx) => {
      const rows: (CounterRow | undefined)[] = [];
      for (const counter of counters) {
        // The upsert takes the row lock on PostgreSQL (SQLite holds the write lock already).
        const row = await trx
          .insertInto('attempt_counters')
          .values({ id: counter.id, attempts: 0, last_at: now, blocked_until: 0 })
          .onConflict((oc) => oc.column('id').doUpdateSet({ attempts: sql`attempt_counters.attempts` }))
          .returning(['attempts', 'last_at', 'blocked_until'])
          .executeTakeFirstOrThrow();
        const fresh = now - Number(row.last_at) > counter.policy.forgetAfterMs;
        rows.push(fresh ? undefined : { attempts: row.attempts, last_at: Number(row.last_at), blocked_until: Number(row.blocked_until) });
      }
      let waitMs = 0;
      for (const [i, row] of rows.entries()) {
        if (!row || counters[i].countOnly) continue;
        // The wait the counter's policy asks now, as well as the one set when it was last counted: a
        // policy made stricter (authThrottles.ts, under a flood) holds from the next attempt.
        const delay = delayAfter(counters[i].policy, row.attempts);
        const until = Math.max(row.blocked_until, delay > 0 ? row.last_at + delay : 0);
        if (now < until) waitMs = Math.max(waitMs, until - now);
      }
      if (waitMs > 0) return { allowed: false as const, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
      for (const [i, counter] of counters.entries()) {
        const attempts = (rows[i]?.attempts ?? 0) + 1;
        const delay = delayAfter(counter.policy, attempts);
        // No delay is no block at all, not a block until "now": another process's clock may lag.
        await trx
          .updateTable('attempt_counters')
          .set({ attempts, last_at: now, blocked_until: delay > 0 ? now + delay : 0 })
          .where('id', '=', counter.id)
          .execute();
      }
      return { allowed: true as const };
    }, 'relaxed');
    await this.sweep(now, Math.max(...keys.map((k) => k.policy.forgetAfterMs)));
    return answer;
  }

  /** Whether the counter is past its free attempts and in its wait now (read only: nothing is counted). */
  async waiting(key: Omit<CounterKey, 'policy' | 'countOnly'>): Promise<boolean> {
    const row = await this.db.kysely.selectFrom('attempt_counters').select('blocked_until').where('id', '=', counterId(key)).executeTakeFirst();
    return row !== undefined && this.clock.now() < Number(row.blocked_until);
  }

  /** A success that proves the attempts were legitimate (a right password): the counter starts afresh. */
  async clear(key: Omit<CounterKey, 'policy'>): Promise<void> {
    await this.db.kysely.deleteFrom('attempt_counters').where('id', '=', counterId(key)).execute();
  }

  /** Counters idle past their forgetting time are deleted now and then, so the table follows the active keys. */
  private async sweep(now: number, forgetAfterMs: number): Promise<void> {
    if (++this.admissionsSinceSweep < 256) return;
    this.admissionsSinceSweep = 0;
    await this.db.kysely.deleteFrom('attempt_counters').where('last_at', '<', now - forgetAfterMs).execute();
  }
}
