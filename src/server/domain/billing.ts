/**
 * One metered call (/pvs, /segment) as explicit atomic phases, after Brandur's rocket-rides-atomic.
 * Each phase that writes is one transaction ending at a named recovery point (attempts.state):
 *
 *   peek             (read only)       a live stored result is replayed, a conflict answered 409
 *   prepare          (no writes)       image checked (400), worker slot reserved (503)
 *   claim + charge → charged           key claimed and one credit taken, in ONE durable transaction:
 *                                      a claimed key always has a charged attempt, and a 402 leaves
 *                                      nothing behind
 *   (the engine runs here, outside any transaction, in a worker thread)
 *   settle         → completed         200 stored, charge kept
 *                  → refund_pending    empty / invalid / failed result stored, refund owed
 *   refund         → refunded          refund entry written against the original charge (durable)
 *
 * Whatever a crash leaves in `charged` or `refund_pending` is finished by `Recovery` and the refund
 * loop (src/server/domain/recovery.ts), in this process or any other.
 */
import { sql, type Transaction } from 'kysely';
import { LIMITS } from '../../contract/limits';
import { problemTypeUri, PROBLEM_TYPES } from '../../contract/problems';
import type { Db } from '../db/connect';
import type { AttemptsTable, Database, IdempotencyKeysTable, KeyScope } from '../db/schema';
import type { Clock } from './clock';
import { DomainError } from './errors';
import type { FaultInjector } from './faults';
import { newId } from './ids';
import { applyLedgerEntry } from './ledger';
import { requestFingerprint } from './fingerprint';

export interface BillingOptions {
  /** How long an attempt may run before another process may consider it orphaned. */
  leaseMs: number;
  /** Retry-After for 409 in-progress / refund-pending answers. */
  inProgressRetryAfterSeconds: number;
  refundBackoffMs: (failedAttempts: number) => number;
}

export const DEFAULT_BILLING_OPTIONS: BillingOptions = {
  leaseMs: 120_000,
  inProgressRetryAfterSeconds: 1,
  refundBackoffMs: (n) => Math.min(60_000, 250 * 2 ** Math.min(n, 8)),
};

export interface CallOutcome {
  status: number;
  body: unknown;
  /** The stored JSON of a replay, sent as is. */
  rawBody?: string;
  headers: Record<string, string>;
}

/** The engine side of a call, prepared before the charge so that bad input is never charged. */
export interface PreparedWork<Res> {
  run(): Promise<Res>;
  /** Gives back what `prepare` reserved when the call does not go ahead. */
  cancel(): void;
}

export interface MeteredCall<Res> {
  accountId: string;
  endpoint: string;
  method: string;
  path: string;
  requestId: string;
  /** Validated request with defaults applied: the fingerprint covers it. */
  body: unknown;
  idempotencyKey?: string;
  forceRefresh: boolean;
  /**
   * Check the image, reserve a worker slot… May throw a DomainError (400, 503): nothing is charged.
   * `scope` namespaces client-chosen image ids: the account id, or the payer of an x402 payment.
   */
  prepare(scope: string): Promise<PreparedWork<Res>>;
  /** true when the result has no mask at all: kept as a 200, refunded. */
  isEmpty(result: Res): boolean;
  /** false when the result violates the response schema: refunded, answered with 500. */
  isValid(result: Res): boolean;
}

type Decision =
  | { kind: 'new' }
  | { kind: 'replay'; attempt: AttemptsTable }
  | { kind: 'conflict'; error: DomainError };

export type Claim = { kind: 'new'; attemptId: string } | Exclude<Decision, { kind: 'new' }>;

class ClaimRace extends Error {}

const keyTtl = (scope: KeyScope): number => (scope === 'explicit' ? LIMITS.keyedResultReuseMs : LIMITS.unkeyedResultReuseMs);

export class Billing {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly faults: FaultInjector,
    private readonly instanceId: string,
    readonly options: BillingOptions = DEFAULT_BILLING_OPTIONS,
  ) {}

  async run<Res>(call: MeteredCall<Res>): Promise<CallOutcome> {
    const fingerprint = requestFingerprint(call.method, call.path, call.body);

    // Peek: replays and conflicts need no image check, no worker and no write.
    const peeked = await this.peek(call, fingerprint);
    if (peeked.kind === 'replay') return this.replay(peeked.attempt);
    if (peeked.kind === 'conflict') throw peeked.error;

    const work = await call.prepare(call.accountId);

    // Claim the key and charge one credit, atomically.
    let claim: Claim;
    try {
      claim = await this.claimAndCharge(call, fingerprint);
    } catch (error) {
      work.cancel();
      throw error;
    }
    if (claim.kind !== 'new') {
      work.cancel();
      if (claim.kind === 'replay') return this.replay(claim.attempt);
      throw claim.error;
    }
    const { attemptId } = claim;

    // Outside any transaction: the engine.
    let result: Res | undefined;
    let failure: DomainError | undefined;
    try {
      result = await runWithFaults(this.faults, work);
      if (!call.isValid(result)) failure = new DomainError('invalid-result');
    } catch (error) {
      failure =
        error instanceof DomainError
          ? error
          : new DomainError('engine-failure', error instanceof Error ? error.message : String(error));
    } finally {
      // Frees the worker slot if the call never reached the engine (idempotent otherwise).
      work.cancel();
    }

    // Settle, and refund when owed.
    if (!failure && result !== undefined && !call.isEmpty(result)) {
      const settled = await this.settle(attemptId, 'completed', 200, result, true);
      if (!settled) throw this.abandonedError(call.requestId);
      return { status: 200, body: result, headers: {} };
    }
    if (!failure) {
      const settled = await this.settle(attemptId, 'refund_pending', 200, result, true);
      if (!settled) throw this.abandonedError(call.requestId);
      const refunded = await this.refund(attemptId);
      return { status: 200, body: result, headers: refunded ? { 'X-Service-Refunded': 'true' } : {} };
    }
    // A failure after the charge (engine error, invalid result, an image the worker could not
    // decode) is refunded and never replayed: once refunded, the key is free for a new attempt.
    const problem = {
      type: problemTypeUri(failure.slug),
      title: PROBLEM_TYPES[failure.slug].title,
      status: failure.status,
      detail: failure.detail,
      requestId: call.requestId,
    };
    const settled = await this.settle(attemptId, 'refund_pending', failure.status, problem, false, failure.detail);
    if (!settled) throw this.abandonedError(call.requestId);
    const refunded = await this.refund(attemptId);
    throw new DomainError(failure.slug, failure.detail, {
      members: { refunded },
      headers: refunded ? { 'X-Service-Refunded': 'true' } : {},
    });
  }

  private abandonedError(requestId: string): DomainError {
    return new DomainError('attempt-abandoned', `attempt of request ${requestId} was recovered (refunded) before it finished`);
  }

  private keyOf(call: MeteredCall<unknown>, fingerprint: string): { scope: KeyScope; key: string } {
    return call.idempotencyKey ? { scope: 'explicit', key: call.idempotencyKey } : { scope: 'implicit', key: fingerprint };
  }

  /** The idempotency rules, given the key's row and its attempt. Pure. */
  private decide(
    existing: IdempotencyKeysTable | undefined,
    attempt: AttemptsTable | undefined,
    scope: KeyScope,
    call: MeteredCall<unknown>,
    fingerprint: string,
    now: number,
  ): Decision {
    if (!existing || !attempt) return { kind: 'new' };
    const live = existing.expires_at === null || existing.expires_at > now;
    // An explicit key beats X-Force-Refresh; force-refresh only bypasses the unkeyed reuse.
    const bypass = scope === 'implicit' && call.forceRefresh;
    if (!live || bypass) return { kind: 'new' };
    if (existing.fingerprint !== fingerprint) return { kind: 'conflict', error: new DomainError('idempotency-key-reused') };
    const retryAfterSeconds = this.options.inProgressRetryAfterSeconds;
    if (attempt.state === 'started' || attempt.state === 'charged') {
      return { kind: 'conflict', error: new DomainError('request-in-progress', undefined, { retryAfterSeconds }) };
    }
    if (attempt.state === 'refund_pending') {
      return { kind: 'conflict', error: new DomainError('refund-pending', undefined, { retryAfterSeconds }) };
    }
    if ((attempt.state === 'completed' || attempt.state === 'refunded') && attempt.replayable) return { kind: 'replay', attempt };
    return { kind: 'new' };
  }

  /** Read-only look at the key; answers replays and conflicts without any write. */
  async peek(call: MeteredCall<unknown>, fingerprint: string): Promise<Decision> {
    const { scope, key } = this.keyOf(call, fingerprint);
    const existing = await this.db.kysely
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('account_id', '=', call.accountId)
      .where('scope', '=', scope)
      .where('key', '=', key)
      .executeTakeFirst();
    const attempt = existing
      ? await this.db.kysely.selectFrom('attempts').selectAll().where('id', '=', existing.attempt_id).executeTakeFirst()
      : undefined;
    return this.decide(existing, attempt, scope, call, fingerprint, this.clock.now());
  }

  /**
   * Claim the key (under a row lock on PostgreSQL, the write lock on SQLite), re-decide, and for a
   * new attempt insert it as `charged` together with its ledger charge. Throws
   * DomainError('insufficient-credits') with nothing written.
   */
  async claimAndCharge(call: MeteredCall<unknown>, fingerprint: string): Promise<Claim> {
    const { scope, key } = this.keyOf(call, fingerprint);
    try {
      return await this.db.transaction(async (trx): Promise<Claim> => {
        const now = this.clock.now();
        const existing = await trx
          .selectFrom('idempotency_keys')
          .selectAll()
          .where('account_id', '=', call.accountId)
          .where('scope', '=', scope)
          .where('key', '=', key)
          .$if(this.db.dialect === 'postgres', (q) => q.forUpdate())
          .executeTakeFirst();
        const attempt = existing
          ? await trx.selectFrom('attempts').selectAll().where('id', '=', existing.attempt_id).executeTakeFirst()
          : undefined;
        const decision = this.decide(existing, attempt, scope, call, fingerprint, now);
        if (decision.kind !== 'new') return decision;

        const attemptId = await this.insertAttempt(trx, call, fingerprint, now);
        if (existing) {
          await trx
            .updateTable('idempotency_keys')
            .set({ attempt_id: attemptId, fingerprint, expires_at: null })
            .where('account_id', '=', call.accountId)
            .where('scope', '=', scope)
            .where('key', '=', key)
            .execute();
        } else {
          const inserted = await trx
            .insertInto('idempotency_keys')
            .values({ account_id: call.accountId, scope, key, fingerprint, attempt_id: attemptId, expires_at: null })
            .onConflict((oc) => oc.columns(['account_id', 'scope', 'key']).doNothing())
            .executeTakeFirst();
          // Another process claimed the same key between our read and write: it is running now.
          if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) throw new ClaimRace();
        }
        await applyLedgerEntry(trx, { accountId: call.accountId, amount: -LIMITS.creditsPerCall, kind: 'charge', reference: attemptId, now });
        return { kind: 'new', attemptId };
      });
    } catch (error) {
      if (error instanceof ClaimRace) {
        const retryAfterSeconds = this.options.inProgressRetryAfterSeconds;
        return { kind: 'conflict', error: new DomainError('request-in-progress', undefined, { retryAfterSeconds }) };
      }
      throw error;
    }
  }

  private async insertAttempt(trx: Transaction<Database>, call: MeteredCall<unknown>, fingerprint: string, now: number) {
    const id = newId('att');
    await trx
      .insertInto('attempts')
      .values({
        id,
        account_id: call.accountId,
        endpoint: call.endpoint,
        fingerprint,
        idempotency_key: call.idempotencyKey ?? null,
        state: 'charged',
        request_id: call.requestId,
        owner_instance: this.instanceId,
        lease_until: now + this.options.leaseMs,
        response_status: null,
        response_body: null,
        replayable: 0,
        failure: null,
        refund_attempts: 0,
        next_refund_at: null,
        last_refund_error: null,
        created_at: now,
        updated_at: now,
        completed_at: null,
      })
      .execute();
    return id;
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
    body: unknown,
    replayable: boolean,
    failure?: string,
  ): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const now = this.clock.now();
      const moved = await trx
        .updateTable('attempts')
        .set({
          state,
          response_status: status,
          response_body: JSON.stringify(body ?? null),
          replayable: replayable ? 1 : 0,
          failure: failure ?? null,
          updated_at: now,
          completed_at: state === 'completed' ? now : null,
          next_refund_at: state === 'refund_pending' ? now : null,
        })
        .where('id', '=', attemptId)
        .where('state', '=', 'charged')
        .executeTakeFirst();
      if (Number(moved.numUpdatedRows) !== 1) return false;
      if (state === 'completed') await this.startKeyExpiry(trx, attemptId, now);
      return true;
    }, 'relaxed');
  }

  /** Refund one attempt, now. Returns true when the refund is applied (by this or an earlier call). */
  async refund(attemptId: string): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const attempt = await trx
        .selectFrom('attempts')
        .selectAll()
        .where('id', '=', attemptId)
        .$if(this.db.dialect === 'postgres', (q) => q.forUpdate())
        .executeTakeFirst();
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
    await applyLedgerEntry(trx, {
      accountId: attempt.account_id,
      amount: LIMITS.creditsPerCall,
      kind: 'refund',
      reference: attempt.id,
      now,
    });
    await trx
      .updateTable('attempts')
      .set({ state: 'refunded', refund_attempts: sql`refund_attempts + 1`, next_refund_at: null, updated_at: now, completed_at: now })
      .where('id', '=', attempt.id)
      .execute();
    return true;
  }

  private async startKeyExpiry(trx: Transaction<Database>, attemptId: string, now: number): Promise<void> {
    for (const scope of ['explicit', 'implicit'] as const) {
      await trx
        .updateTable('idempotency_keys')
        .set({ expires_at: now + keyTtl(scope) })
        .where('attempt_id', '=', attemptId)
        .where('scope', '=', scope)
        .execute();
    }
  }

  private replay(attempt: AttemptsTable): CallOutcome {
    const headers: Record<string, string> = {
      'X-Idempotent-Replayed': 'true',
      'X-Service-Original-Request-ID': attempt.request_id,
    };
    if (attempt.state === 'refunded') headers['X-Service-Refunded'] = 'true';
    return { status: attempt.response_status ?? 200, body: undefined, rawBody: attempt.response_body ?? 'null', headers };
  }
}

/** The engine call, with FAULT_INJECTION's engine faults applied (also used by paid x402 calls). */
export async function runWithFaults<Res>(faults: FaultInjector, work: PreparedWork<Res>): Promise<Res> {
  await faults.delayEngine();
  faults.maybeThrow('engine');
  let result = await work.run();
  if (faults.shouldFail('invalid')) result = corrupt(result);
  if (faults.shouldFail('empty')) result = emptied(result);
  return result;
}

/** FAULT_INJECTION `invalid`: a result that fails the response schema. */
function corrupt<Res>(result: Res): Res {
  return { ...(result as object), corrupted: Number.NaN, prompts: 'corrupted', prompt_results: 'corrupted' } as Res;
}

/** FAULT_INJECTION `empty`: the same structure with every mask removed. */
function emptied<Res>(result: Res): Res {
  const r = result as Record<string, unknown>;
  if (Array.isArray(r.prompts)) {
    return { ...r, prompts: (r.prompts as { predictions: unknown[] }[]).map(() => ({ predictions: [] })) } as Res;
  }
  if (Array.isArray(r.prompt_results)) {
    return {
      ...r,
      prompt_results: (r.prompt_results as { echo: unknown }[]).map((p) => ({ echo: p.echo, predictions: [] })),
    } as Res;
  }
  return result;
}
