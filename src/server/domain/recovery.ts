/**
 * Background work that keeps the billing promises when requests or processes fail:
 *  - every process registers in `server_instances` and heartbeats;
 *  - attempts left `charged` by a dead process (stale heartbeat or expired lease) move to
 *    refund_pending;
 *  - `refund_pending` attempts whose retry time has come are refunded.
 * Several processes may run this at once: on PostgreSQL each row is taken with
 * FOR UPDATE SKIP LOCKED, so no two processes work on one attempt and none waits for another;
 * on SQLite the write lock makes every transaction single-writer. The ledger's unique
 * (kind, reference) is the last line: a refund can never be applied twice.
 */
import { sql } from 'kysely';
import { LIMITS } from '../../contract/limits';
import type { Db } from '../db/connect';
import { storedProblem, type Credits } from './metered/credits';
import type { Clock } from './clock';

export interface RecoveryOptions {
  heartbeatMs: number;
  /** An instance whose heartbeat is older than this is considered dead. */
  instanceStaleMs: number;
  sweepMs: number;
}

export const DEFAULT_RECOVERY_OPTIONS: RecoveryOptions = { heartbeatMs: 2_000, instanceStaleMs: 10_000, sweepMs: 1_000 };

export class Recovery {
  private timers: NodeJS.Timeout[] = [];
  private lastPurge = 0;
  private sweeping: Promise<unknown> | undefined;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly credits: Credits,
    readonly instanceId: string,
    readonly options: RecoveryOptions = DEFAULT_RECOVERY_OPTIONS,
  ) {}

  async register(): Promise<void> {
    const now = this.clock.now();
    await this.db.kysely
      .insertInto('server_instances')
      .values({ id: this.instanceId, started_at: now, heartbeat_at: now, pid: process.pid })
      .execute();
  }

  async heartbeat(): Promise<void> {
    await this.db.kysely
      .updateTable('server_instances')
      .set({ heartbeat_at: this.clock.now() })
      .where('id', '=', this.instanceId)
      .execute();
  }

  start(): void {
    const guard = (fn: () => Promise<unknown>) => () => {
      fn().catch((error) => console.error('[recovery]', error));
    };
    this.timers.push(setInterval(guard(() => this.heartbeat()), this.options.heartbeatMs));
    this.timers.push(
      setInterval(
        guard(() => this.sweepOnce()),
        this.options.sweepMs,
      ),
    );
    for (const t of this.timers) t.unref();
  }

  /** One pass: recover orphans, then retry due refunds. Never two passes at once in a process. */
  async sweepOnce(): Promise<{ orphans: number; refunded: number; refundFailures: number }> {
    if (this.sweeping) {
      await this.sweeping;
      return { orphans: 0, refunded: 0, refundFailures: 0 };
    }
    const run = (async () => {
      const orphans = await this.recoverOrphans();
      const { refunded, failures } = await this.retryDueRefunds();
      if (this.clock.now() - this.lastPurge > 60_000) {
        this.lastPurge = this.clock.now();
        await this.purgeExpired();
      }
      return { orphans, refunded, refundFailures: failures };
    })();
    this.sweeping = run;
    try {
      return await run;
    } finally {
      this.sweeping = undefined;
    }
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    await this.sweeping?.catch(() => undefined);
    await this.db.kysely.deleteFrom('server_instances').where('id', '=', this.instanceId).execute();
  }

  /** Attempts still `charged` whose owner is gone or whose lease ran out. */
  async recoverOrphans(limit = 100): Promise<number> {
    let recovered = 0;
    for (let i = 0; i < limit; i += 1) {
      const done = await this.db.transaction(async (trx) => {
        const now = this.clock.now();
        const staleBefore = now - this.options.instanceStaleMs;
        const orphan = await trx
          .selectFrom('attempts')
          .selectAll()
          .where('state', '=', 'charged')
          .where((eb) =>
            eb.or([
              eb('lease_until', '<', now),
              eb.not(
                eb.exists(
                  eb
                    .selectFrom('server_instances')
                    .select('server_instances.id')
                    .whereRef('server_instances.id', '=', 'attempts.owner_instance')
                    .where('server_instances.heartbeat_at', '>=', staleBefore),
                ),
              ),
            ]),
          )
          .orderBy('created_at')
          .limit(1)
          .$if(this.db.dialect === 'postgres', (q) => q.forUpdate().skipLocked())
          .executeTakeFirst();
        if (!orphan) return false;
        await trx
          .updateTable('attempts')
          .set({
            state: 'refund_pending',
            response_status: 500,
            response_body: storedProblem('attempt-abandoned', orphan.request_id),
            replayable: 0,
            failure: 'owner process gone or lease expired',
            next_refund_at: now,
            updated_at: now,
          })
          .where('id', '=', orphan.id)
          .execute();
        return true;
      });
      if (!done) break;
      recovered += 1;
    }
    return recovered;
  }

  /** Refunds whose retry time has come, one row per transaction. */
  async retryDueRefunds(limit = 100): Promise<{ refunded: number; failures: number }> {
    let refunded = 0;
    let failures = 0;
    const tried = new Set<string>();
    for (let i = 0; i < limit; i += 1) {
      const outcome = await this.db.transaction(async (trx) => {
        const due = await trx
          .selectFrom('attempts')
          .selectAll()
          .where('state', '=', 'refund_pending')
          .where('next_refund_at', '<=', this.clock.now())
          .$if(tried.size > 0, (q) => q.where('id', 'not in', [...tried]))
          .orderBy('next_refund_at')
          .limit(1)
          .$if(this.db.dialect === 'postgres', (q) => q.forUpdate().skipLocked())
          .executeTakeFirst();
        if (!due) return undefined;
        tried.add(due.id);
        return this.credits.refundLocked(trx, due);
      });
      if (outcome === undefined) break;
      if (outcome) refunded += 1;
      else failures += 1;
    }
    return { refunded, failures };
  }

  /**
   * Housekeeping: forget expired keys and the stored bodies nobody can replay any more, so storage
   * does not grow without bound. Attempts themselves stay (with their ledger entries) for audit.
   */
  async purgeExpired(): Promise<void> {
    const now = this.clock.now();
    await this.db.kysely.deleteFrom('idempotency_keys').where('expires_at', '<', now).execute();
    await this.db.kysely.deleteFrom('sessions').where('expires_at', '<', now).execute();
    await this.db.kysely.deleteFrom('server_instances').where('heartbeat_at', '<', now - 24 * 60 * 60 * 1000).execute();
    await this.db.kysely.deleteFrom('paid_keys').where('expires_at', '<', now).execute();
    // Stored bodies of calls (credits, then x402) that no live key can replay any more.
    const stale = now - LIMITS.keyedResultReuseMs;
    for (const [calls, keys, ref] of [['attempts', 'idempotency_keys', 'attempt_id'], ['paid_calls', 'paid_keys', 'call_id']] as const) {
      await sql`update ${sql.table(calls)} set response_body = null
        where completed_at < ${stale} and response_body is not null
          and not exists (select 1 from ${sql.table(keys)} k where k.${sql.ref(ref)} = ${sql.table(calls)}.id)`.execute(this.db.kysely);
    }
  }

  async pendingRefunds(): Promise<number> {
    const row = await this.db.kysely
      .selectFrom('attempts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('state', '=', 'refund_pending')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
