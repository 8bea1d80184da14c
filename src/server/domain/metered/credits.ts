/**
 * Paying with credits: one credit from the account's ledger per call, refunded when the call does
 * not give a result. Recovery points (attempts.state):
 *
 *   claim + charge → charged           key claimed and one credit taken, in ONE transaction: a
 *                                      claimed key always has a charged attempt, and a 402 leaves
 *                                      nothing behind. Committed relaxed (visible at once, to every
 *                                      process); a durable commit flushes it while the engine runs,
 *                                      and nothing is answered before that flush
 *   succeeded      → completed         200 stored, charge kept
 *   emptied/failed → refund_pending    empty / invalid / failed result stored, refund owed
 *   refund         → refunded          refund entry written against the original charge (durable)
 *
 * Whatever a crash leaves in `charged` or `refund_pending` is finished by `Recovery` and the refund
 * loop (domain/recovery.ts), in this process or any other.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import { LIMITS } from '../../../contract/limits';
import { problemTypeUri, PROBLEM_TYPES, type ProblemSlug } from '../../../contract/problems';
import type { Db, Durability } from '../../db/connect';
import { preparedQuery } from '../../db/prepared';
import type { AttemptState, AttemptsTable, Database, KeyScope } from '../../db/schema';
import type { Clock } from '../clock';
import { DomainError } from '../errors';
import type { FaultInjector } from '../faults';
import { newId } from '../ids';
import { applyLedgerEntry, balanceOf } from '../ledger';
import { decide, type Decision, type StoredKey } from './decision';
import type { Answered, Claim, MeteredCall, MeteredOutcome, Payment, PaymentMethod, RequestKey } from './runner';

export interface CreditOptions {
  /** How long an attempt may run before another process may consider it orphaned. */
  leaseMs: number;
  refundBackoffMs: (failedAttempts: number) => number;
}

function selectKeyWithAttempt(db: Kysely<Database>, $: (index: number) => string) {
  return db
    .selectFrom('idempotency_keys as k')
    .innerJoin('attempts as a', 'a.id', 'k.attempt_id')
    .selectAll('a')
    .select(['k.fingerprint as key_fingerprint', 'k.expires_at as key_expires_at'])
    .where('k.account_id', '=', $(0))
    .where('k.scope', '=', $(1) as KeyScope)
    .where('k.key', '=', $(2));
}
type KeyWithAttemptRow = AttemptsTable & { key_fingerprint: string; key_expires_at: number | null };

/** The hot path's statements, compiled once (db/prepared.ts). */
const Q = {
  insertAttempt: preparedQuery<
    [id: string, accountId: string, endpoint: string, fingerprint: string, key: string | null, digest: string | null, requestId: string, owner: string, leaseUntil: number, now: number]
  >((db, $) =>
    db.insertInto('attempts').values({
      id: $(0),
      account_id: $(1),
      endpoint: $(2),
      fingerprint: $(3),
      idempotency_key: $(4),
      body_digest: $(5),
      state: 'charged',
      request_id: $(6),
      owner_instance: $(7),
      lease_until: $(8),
      response_status: null,
      response_body: null,
      replayable: 0,
      failure: null,
      refund_attempts: 0,
      next_refund_at: null,
      last_refund_error: null,
      created_at: $(9),
      updated_at: $(9),
      completed_at: null,
    }),
  ),
  claimKey: preparedQuery<[accountId: string, scope: KeyScope, key: string, fingerprint: string, attemptId: string]>((db, $) =>
    db
      .insertInto('idempotency_keys')
      .values({ account_id: $(0), scope: $(1), key: $(2), fingerprint: $(3), attempt_id: $(4), expires_at: null })
      .onConflict((oc) => oc.columns(['account_id', 'scope', 'key']).doNothing()),
  ),
  keyWithAttempt: preparedQuery<[accountId: string, scope: KeyScope, key: string], KeyWithAttemptRow>((db, $) => selectKeyWithAttempt(db, $)),
  keyWithAttemptLocked: preparedQuery<[accountId: string, scope: KeyScope, key: string], KeyWithAttemptRow>((db, $) =>
    selectKeyWithAttempt(db, $).forUpdate('k'),
  ),
  settleAttempt: preparedQuery<
    [state: AttemptState, status: number, body: string, replayable: number, failure: string | null, now: number, completedAt: number | null, nextRefundAt: number | null, attemptId: string]
  >((db, $) =>
    db
      .updateTable('attempts')
      .set({
        state: $(0),
        response_status: $(1),
        response_body: $(2),
        replayable: $(3),
        failure: $(4),
        updated_at: $(5),
        completed_at: $(6),
        next_refund_at: $(7),
      })
      .where('id', '=', $(8))
      .where('state', '=', 'charged'),
  ),
  // The attempt's key row, whichever its scope, gets that scope's reuse window.
  startKeyExpiry: preparedQuery<[keyedUntil: number, implicitUntil: number, attemptId: string]>((db, $) =>
    db
      .updateTable('idempotency_keys')
      .set({ expires_at: sql<number>`case when scope = 'implicit' then cast(${$(1)} as bigint) else cast(${$(0)} as bigint) end` })
      .where('attempt_id', '=', $(2)),
  ),
  reclaimKey: preparedQuery<[attemptId: string, fingerprint: string, accountId: string, scope: KeyScope, key: string]>((db, $) =>
    db
      .updateTable('idempotency_keys')
      .set({ attempt_id: $(0), fingerprint: $(1), expires_at: null })
      .where('account_id', '=', $(2))
      .where('scope', '=', $(3))
      .where('key', '=', $(4)),
  ),
};

/** How long a stored answer is reused: 5 minutes without a key, 24 h under any other (Idempotency-Key, content, payment). */
export const keyTtl = (scope: 'explicit' | 'implicit' | 'payment' | 'content'): number =>
  scope === 'implicit' ? LIMITS.unkeyedResultReuseMs : LIMITS.keyedResultReuseMs;

/** The record kept of a failed call (never replayed): the problem it was answered with. */
export function storedProblem(slug: ProblemSlug, requestId: string, detail?: string): string {
  const info = PROBLEM_TYPES[slug];
  return JSON.stringify({ type: problemTypeUri(slug), title: info.title, status: info.status, detail, requestId });
}

/** An attempt and its key as the idempotency rules see them. */
function storedKeyOf(row: KeyWithAttemptRow): StoredKey<MeteredOutcome> {
  const replayable = (row.state === 'completed' || row.state === 'refunded') && row.replayable === 1;
  const status = row.state === 'charged' ? 'running' : row.state === 'refund_pending' ? 'refund-pending' : replayable ? 'answered' : 'open';
  return {
    fingerprint: row.key_fingerprint,
    expiresAt: row.key_expires_at,
    status,
    stored: {
      kind: 'replayed',
      status: row.response_status ?? 200,
      json: row.response_body ?? 'null',
      originalRequestId: row.request_id,
      refunded: row.state === 'refunded',
    },
  };
}

/** Credits: claims and charges in the ledger, refunds what did not give a result. */
export class Credits {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly faults: FaultInjector,
    private readonly instanceId: string,
    readonly options: CreditOptions,
  ) {}

  /**
   * The account pays. `balanceHint`: its balance as read moments ago (with the API key), if it was:
   * spares a read before the engine starts. Only a hint: the charge's conditional update decides.
   */
  method(accountId: string, balanceHint?: number): PaymentMethod<string> {
    return { begin: async (call) => this.payment(call, accountId, balanceHint) };
  }

  private payment(call: MeteredCall<unknown>, accountId: string, balanceHint: number | undefined): Payment<string> {
    return {
      scope: accountId,
      peek: (key, fingerprint) => this.peek(accountId, key, fingerprint, call.forceRefresh),
      refuseEarly: async () => {
        if ((balanceHint ?? (await balanceOf(this.db.kysely, accountId))) < priceOf(call)) throw new DomainError('insufficient-credits');
      },
      // The claim commits relaxed: visible at once, so a concurrent duplicate sees it; the flush
      // (`whileRunning`) runs while the engine does, and no answer goes out before both are done.
      claim: (key, fingerprint) => this.claimAndCharge(accountId, call, key, fingerprint, 'relaxed'),
      whileRunning: (attemptId) => this.makeChargeDurable(attemptId),
      succeeded: async (attemptId, result, json) => {
        if (!(await this.settle(attemptId, 'completed', 200, json, true))) throw abandoned(call.requestId);
        return { kind: 'answered', result, json, refunded: false };
      },
      // An empty result stays a 200 with the normal structure, and is refunded.
      emptied: async (attemptId, result, json) => {
        if (!(await this.settle(attemptId, 'refund_pending', 200, json, true))) throw abandoned(call.requestId);
        return { kind: 'answered', result, json, refunded: await this.refund(attemptId) };
      },
      // A failure after the charge (engine error, invalid result, an image the worker could not
      // decode) is refunded and never replayed: once refunded, the key is free for a new attempt.
      failed: async (attemptId, failure) => {
        const record = storedProblem(failure.slug, call.requestId, failure.detail);
        if (!(await this.settle(attemptId, 'refund_pending', failure.status, record, false, failure.detail))) return abandoned(call.requestId);
        const refunded = await this.refund(attemptId);
        return new DomainError(failure.slug, failure.detail, { refunded });
      },
    };
  }

  private async peek(accountId: string, key: RequestKey, fingerprint: string, forceRefresh: boolean): Promise<Decision<MeteredOutcome>> {
    const row = await this.keyWithAttempt(this.db.kysely, accountId, key);
    return decide(row && storedKeyOf(row), { scope: key.scope, fingerprint, forceRefresh, now: this.clock.now() });
  }

  /**
   * The fast path of a keyed retry: when the key's attempt was made from exactly these bytes (same
   * method and path too), its answer is known before the body is parsed or validated. The stored
   * replay, or the 409 of an attempt still running or awaiting its refund (as a decision); undefined
   * for anything else (unknown key, other bytes, expired key): that takes the full path.
   */
  async decideByDigest(accountId: string, idempotencyKey: string, bodyDigest: string): Promise<Answered | undefined> {
    const row = await this.keyWithAttempt(this.db.kysely, accountId, { scope: 'explicit', key: idempotencyKey });
    if (!row || row.body_digest !== bodyDigest) return undefined;
    const decision = decide(storedKeyOf(row), { scope: 'explicit', fingerprint: row.key_fingerprint, forceRefresh: false, now: this.clock.now() });
    return decision.kind === 'new' ? undefined : decision;
  }

  /**
   * A key's row and its attempt's, in one read. `lockKey` (inside the claim's transaction): the key
   * row only is locked on PostgreSQL — the lock order is attempt → key → account, and a claim must
   * not hold an attempt's lock while it waits for a key's.
   */
  private async keyWithAttempt(db: Kysely<Database>, accountId: string, { scope, key }: RequestKey, lockKey = false): Promise<KeyWithAttemptRow | undefined> {
    const query = lockKey && this.db.dialect === 'postgres' ? Q.keyWithAttemptLocked : Q.keyWithAttempt;
    const [row] = (await query.run(this.db.kysely, db, accountId, scope, key)).rows;
    return row;
  }

  /**
   * Claim the key (under a row lock on PostgreSQL, the write lock on SQLite), re-decide, and for a
   * new attempt insert it as `charged` together with its ledger charge. Throws
   * DomainError('insufficient-credits') with nothing written.
   */
  async claimAndCharge(
    accountId: string,
    call: MeteredCall<unknown>,
    key: RequestKey,
    fingerprint: string,
    durability: Durability = 'durable',
  ): Promise<Claim<string>> {
    try {
      return await this.db.transaction(async (trx): Promise<Claim<string>> => {
        const now = this.clock.now();
        const existing = await this.keyWithAttempt(trx, accountId, key, true);
        const decision = decide(existing && storedKeyOf(existing), { scope: key.scope, fingerprint, forceRefresh: call.forceRefresh, now });
        if (decision.kind !== 'new') return decision;

        const root = this.db.kysely;
        const attemptId = newId('att');
        await Q.insertAttempt.run(root, trx, attemptId, accountId, call.endpoint, fingerprint, call.idempotencyKey ?? null, call.bodyDigest ?? null, call.requestId, this.instanceId, now + this.options.leaseMs, now);
        if (existing) {
          await Q.reclaimKey.run(root, trx, attemptId, fingerprint, accountId, key.scope, key.key);
        } else {
          const inserted = await Q.claimKey.run(root, trx, accountId, key.scope, key.key, fingerprint, attemptId);
          // Another process claimed the same key between our read and write: it is running now.
          if (Number(inserted.numAffectedRows ?? 0) === 0) throw new ClaimRace();
        }
        await applyLedgerEntry(trx, { accountId, amount: -priceOf(call), kind: 'charge', reference: attemptId, now }, root);
        return { kind: 'claimed', ticket: attemptId };
      }, durability);
    } catch (error) {
      if (error instanceof ClaimRace) return { kind: 'conflict', conflict: 'in-progress' };
      throw error;
    }
  }

  /**
   * Makes a relaxed claim durable: a durable commit syncs SQLite's log (synchronous=FULL) or waits
   * for PostgreSQL's WAL flush, and either covers every earlier commit, the claim's included. What
   * it writes is a renewal of the attempt's lease.
   */
  private async makeChargeDurable(attemptId: string): Promise<void> {
    await this.db.transaction(async (trx) => {
      await trx
        .updateTable('attempts')
        .set({ lease_until: this.clock.now() + this.options.leaseMs })
        .where('id', '=', attemptId)
        .where('state', '=', 'charged')
        .execute();
    });
  }

  /**
   * Settle. Returns false when recovery already took the attempt over (it was refunded). Relaxed
   * durability: the charge is already durable; if a power cut drops this commit, recovery refunds
   * the attempt — the customer is never charged twice.
   */
  async settle(
    attemptId: string,
    state: 'completed' | 'refund_pending',
    status: number,
    responseJson: string,
    replayable: boolean,
    failure?: string,
  ): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const now = this.clock.now();
      const moved = await Q.settleAttempt.run(
        this.db.kysely,
        trx,
        state,
        status,
        responseJson,
        replayable ? 1 : 0,
        failure ?? null,
        now,
        state === 'completed' ? now : null,
        state === 'refund_pending' ? now : null,
        attemptId,
      );
      if (Number(moved.numAffectedRows ?? 0) !== 1) return false;
      if (state === 'completed') await this.startKeyExpiry(trx, attemptId, now);
      return true;
    }, 'relaxed');
  }

  /** Refund one attempt, now. Returns true when the refund is applied (by this or an earlier call). */
  async refund(attemptId: string): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const lock = this.db.dialect === 'postgres';
      const attempt = await trx.selectFrom('attempts').selectAll().where('id', '=', attemptId).$if(lock, (q) => q.forUpdate()).executeTakeFirst();
      if (!attempt) return false;
      if (attempt.state === 'refunded') return true;
      if (attempt.state !== 'refund_pending') return false;
      return this.refundLocked(trx, attempt);
    });
  }

  /** Applies the refund of a locked `refund_pending` attempt, or records the failed try. */
  async refundLocked(trx: Transaction<Database>, attempt: AttemptsTable): Promise<boolean> {
    const now = this.clock.now();
    if (this.faults.shouldFail('refund')) {
      const failed = attempt.refund_attempts + 1;
      await trx
        .updateTable('attempts')
        .set({
          refund_attempts: failed,
          next_refund_at: now + this.options.refundBackoffMs(failed),
          last_refund_error: 'injected refund fault (FAULT_INJECTION)',
          updated_at: now,
        })
        .where('id', '=', attempt.id)
        .execute();
      return false;
    }
    // Lock order everywhere: attempt → idempotency key → account. A claim takes key → account, so
    // touching the key before the balance here means the two can never wait on each other.
    if (attempt.replayable) await this.startKeyExpiry(trx, attempt.id, now);
    else await trx.deleteFrom('idempotency_keys').where('attempt_id', '=', attempt.id).execute();
    // What was charged, whatever the price is now (PRICES may have changed since).
    const charge = await trx
      .selectFrom('ledger_entries')
      .select('amount')
      .where('kind', '=', 'charge')
      .where('reference', '=', attempt.id)
      .executeTakeFirst();
    await applyLedgerEntry(
      trx,
      { accountId: attempt.account_id, amount: charge ? -Number(charge.amount) : LIMITS.creditsPerCall, kind: 'refund', reference: attempt.id, now },
      this.db.kysely,
    );
    await trx
      .updateTable('attempts')
      .set({ state: 'refunded', refund_attempts: sql`refund_attempts + 1`, next_refund_at: null, updated_at: now, completed_at: now })
      .where('id', '=', attempt.id)
      .execute();
    return true;
  }

  private async startKeyExpiry(trx: Transaction<Database>, attemptId: string, now: number): Promise<void> {
    await Q.startKeyExpiry.run(this.db.kysely, trx, now + keyTtl('explicit'), now + keyTtl('implicit'), attemptId);
  }
}

class ClaimRace extends Error {}

const priceOf = (call: MeteredCall<unknown>): number => call.price ?? LIMITS.creditsPerCall;

function abandoned(requestId: string): DomainError {
  return new DomainError('attempt-abandoned', `attempt of request ${requestId} was recovered (refunded) before it finished`);
}
