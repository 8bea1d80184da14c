/**
 * Refunded work is budgeted per payer. A call that ends empty, or with an image that passed the
 * header check but does not decode, is refunded: the caller pays nothing, the service has paid
 * an engine run (an encoder pass for a new photo). Without a bound that is free compute, taken
 * from the paying users' share of the workers. So each payer (an account, or an x402 payer) may
 * have `limit` refunded engine runs per window (a fixed window that starts at its first refunded
 * run); further calls are refused with 429 `refund-budget-exhausted` and Retry-After until the
 * window ends, before anything is charged or handed to a worker. Engine failures of our own
 * (500 engine-failure, invalid-result, a lost process) are not the caller's doing and do not count.
 *
 * The counts are rows of `refund_budgets` (migration 0006_refund_budgets), SQLite and PostgreSQL
 * alike, so every process behind one database counts the same runs. Calls admitted while the last
 * runs are still going may end refunded too: the budget can be exceeded by the calls one account
 * may have in flight (INFERENCE_ACCOUNT_QUEUE), never by more.
 */
import { sql } from 'kysely';
import type { Db } from '../db/connect';
import { preparedQuery } from '../db/prepared';
import type { Clock } from './clock';
import { DomainError } from './errors';

export interface RefundBudgetSettings {
  /** Refunded engine runs allowed per payer and window. */
  limit: number;
  windowMs: number;
}

export const DEFAULT_REFUND_BUDGET: RefundBudgetSettings = { limit: 10, windowMs: 600_000 };

/** The refunded outcomes that count: the caller's input made the engine run for nothing. */
export const BUDGETED_FAILURES: ReadonlySet<string> = new Set(['invalid-image', 'validation-failed']);

/** Read on every metered call before it starts: compiled once (db/prepared.ts). */
const windowOf = preparedQuery<[scope: string], { window_start: number; refunded: number }>((db, $) =>
  db.selectFrom('refund_budgets').select(['window_start', 'refunded']).where('scope', '=', $(0)),
);

export class RefundBudget {
  private recordsSinceSweep = 0;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    readonly settings: RefundBudgetSettings,
  ) {}

  /** Throws 429 refund-budget-exhausted when `scope` has used its budget in the current window. */
  async check(scope: string): Promise<void> {
    const [row] = (await windowOf.run(this.db.kysely, this.db.kysely, scope)).rows;
    if (!row) return;
    const now = this.clock.now();
    const windowEnd = Number(row.window_start) + this.settings.windowMs;
    if (now >= windowEnd || row.refunded < this.settings.limit) return;
    const windowSeconds = Math.round(this.settings.windowMs / 1000);
    throw new DomainError(
      'refund-budget-exhausted',
      `refunded-work-budget: ${row.refunded} refunded engine runs (empty results or undecodable images) in the current ${windowSeconds} s window; at most ${this.settings.limit} per window. Nothing was charged.`,
      {
        retryAfterSeconds: Math.max(1, Math.ceil((windowEnd - now) / 1000)),
        members: { rule: 'refunded-work-budget', limit: this.settings.limit, windowSeconds },
      },
    );
  }

  /** Counts one refunded engine run of `scope`; a window that has ended starts afresh with it. */
  async record(scope: string): Promise<void> {
    const now = this.clock.now();
    const ended = now - this.settings.windowMs;
    await this.db.kysely
      .insertInto('refund_budgets')
      .values({ scope, window_start: now, refunded: 1 })
      .onConflict((oc) =>
        oc.column('scope').doUpdateSet({
          refunded: sql`CASE WHEN refund_budgets.window_start <= ${ended} THEN 1 ELSE refund_budgets.refunded + 1 END`,
          window_start: sql`CASE WHEN refund_budgets.window_start <= ${ended} THEN ${now} ELSE refund_budgets.window_start END`,
        }),
      )
      .execute();
    // Rows whose window has ended are deleted now and then, so the table follows the active payers.
    if (++this.recordsSinceSweep < 256) return;
    this.recordsSinceSweep = 0;
    await this.db.kysely.deleteFrom('refund_budgets').where('window_start', '<=', ended).execute();
  }
}
