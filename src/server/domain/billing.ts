/**
 * One metered call (/pvs, /segment) as explicit atomic phases, after Brandur's rocket-rides-atomic.
 * Each phase is one transaction ending at a named recovery point (attempts.state):
 *
 *   claim   → started         idempotency key claimed (or a stored result replayed / a 409)
 *   charge  → charged         one credit taken, with its ledger entry
 *   (work happens here, outside any transaction: the engine in a worker thread)
 *   settle  → completed       200 stored, charge kept
 *           → refund_pending  empty / invalid / failed result stored, refund owed
 *   refund  → refunded        refund entry written against the original charge
 *
 * A step that cannot proceed before the charge (no credit, undecodable image, busy pool) moves the
 * attempt to `rejected` and releases the key, so nothing is charged and nothing is stored under it.
 * Whatever a crash leaves in `started`/`charged`/`refund_pending` is finished by `Recovery` and the
 * refund loop (src/server/domain/recovery.ts), in this process or any other.
 */
import { sql, type Transaction } from 'kysely';
import { LIMITS } from '../../contract/limits';
import { problemTypeUri, PROBLEM_TYPES } from '../../contract/problems';
import type { Db } from '../db/connect';
import type { AttemptsTable, Database, KeyScope } from '../db/schema';
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
  /** Reserve a worker slot, decode the image… May throw a DomainError (400, 503): nothing is charged. */
  prepare(): Promise<PreparedWork<Res>>;
  /** true when the result has no mask at all: kept as a 200, refunded. */
  isEmpty(result: Res): boolean;
  /** false when the result violates the response schema: refunded, answered with 500. */
  isValid(result: Res): boolean;
}

type Claim =
  | { kind: 'new'; attemptId: string }
  | { kind: 'replay'; attempt: AttemptsTable }
  | { kind: 'conflict'; error: DomainError };

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

    // Phase 1: claim the key.
    const claim = await this.claim(call, fingerprint);
    if (claim.kind === 'replay') return this.replay(claim.attempt);
    if (claim.kind === 'conflict') throw claim.error;
    const { attemptId } = claim;

    let work: PreparedWork<Res>;
    try {
      work = await call.prepare();
    } catch (error) {
      await this.reject(attemptId, 'prepare failed');
      throw error;
    }

    // Phase 2: charge one credit.
    try {
      await this.charge(attemptId, call.accountId);
    } catch (error) {
      work.cancel();
      await this.reject(attemptId, error instanceof DomainError ? error.slug : 'charge failed');
      throw error;
    }

    // Outside any transaction: the engine.
    let result: Res | undefined;
    let failure: DomainError | undefined;
    try {
      await this.faults.delayEngine();
      this.faults.maybeThrow('engine');
      result = await work.run();
      if (this.faults.shouldFail('invalid')) result = corrupt(result);
      if (this.faults.shouldFail('empty')) result = emptied(result);
      if (!call.isValid(result)) failure = new DomainError('invalid-result');
    } catch (error) {
      failure =
        error instanceof DomainError && error.status >= 500
          ? error
          : new DomainError('engine-failure', error instanceof Error ? error.message : String(error));
    } finally {
      // Frees the worker slot if the call never reached the engine (idempotent otherwise).
      work.cancel();
    }

    // Phase 3: settle, and phase 4: refund when owed.
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

  /** Phase 1. */
  async claim(call: MeteredCall<unknown>, fingerprint: string): Promise<Claim> {
    const scope: KeyScope = call.idempotencyKey ? 'explicit' : 'implicit';
    const key = call.idempotencyKey ?? fingerprint;
    const retryAfterSeconds = this.options.inProgressRetryAfterSeconds;
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
        if (existing) {
          const live = existing.expires_at === null || existing.expires_at > now;
          // An explicit key beats X-Force-Refresh; force-refresh only bypasses the unkeyed reuse.
          const bypass = scope === 'implicit' && call.forceRefresh;
          if (live && !bypass) {
            if (existing.fingerprint !== fingerprint) {
              return { kind: 'conflict', error: new DomainError('idempotency-key-reused') };
            }
            const attempt = await trx
              .selectFrom('attempts')
              .selectAll()
              .where('id', '=', existing.attempt_id)
              .executeTakeFirstOrThrow();
            if (attempt.state === 'started' || attempt.state === 'charged') {
              return { kind: 'conflict', error: new DomainError('request-in-progress', undefined, { retryAfterSeconds }) };
            }
            if (attempt.state === 'refund_pending') {
              return { kind: 'conflict', error: new DomainError('refund-pending', undefined, { retryAfterSeconds }) };
            }
            if ((attempt.state === 'completed' || attempt.state === 'refunded') && attempt.replayable) {
              return { kind: 'replay', attempt };
            }
          }
          const attemptId = await this.insertAttempt(trx, call, fingerprint, now);
          await trx
            .updateTable('idempotency_keys')
            .set({ attempt_id: attemptId, fingerprint, expires_at: null })
            .where('account_id', '=', call.accountId)
            .where('scope', '=', scope)
            .where('key', '=', key)
            .execute();
          return { kind: 'new', attemptId };
        }
        const attemptId = await this.insertAttempt(trx, call, fingerprint, now);
        const inserted = await trx
          .insertInto('idempotency_keys')
          .values({ account_id: call.accountId, scope, key, fingerprint, attempt_id: attemptId, expires_at: null })
          .onConflict((oc) => oc.columns(['account_id', 'scope', 'key']).doNothing())
          .executeTakeFirst();
        // Another process claimed the same key between our read and write: it is running now.
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) throw new ClaimRace();
        return { kind: 'new', attemptId };
      });
    } catch (error) {
      if (error instanceof ClaimRace) {
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
        state: 'started',
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

  /** Phase 2. Throws DomainError('insufficient-credits') with nothing changed. */
  async charge(attemptId: string, accountId: string): Promise<void> {
    await this.db.transaction(async (trx) => {
      const now = this.clock.now();
      const moved = await trx
        .updateTable('attempts')
        .set({ state: 'charged', updated_at: now })
        .where('id', '=', attemptId)
        .where('state', '=', 'started')
        .executeTakeFirst();
      if (Number(moved.numUpdatedRows) !== 1) throw new DomainError('attempt-abandoned');
      await applyLedgerEntry(trx, { accountId, amount: -LIMITS.creditsPerCall, kind: 'charge', reference: attemptId, now });
    });
  }

  /** Never charged: release the key so nothing is stored under it. */
  async reject(attemptId: string, reason: string): Promise<void> {
    await this.db.transaction(async (trx) => {
      const now = this.clock.now();
      await trx
        .updateTable('attempts')
        .set({ state: 'rejected', failure: reason, updated_at: now, completed_at: now })
        .where('id', '=', attemptId)
        .where('state', '=', 'started')
        .execute();
      await trx.deleteFrom('idempotency_keys').where('attempt_id', '=', attemptId).execute();
    });
  }

  /** Phase 3. Returns false when recovery already took the attempt over (it was refunded). */
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
    });
  }

  /** Phase 4 for one attempt, now. Returns true when the refund is applied (by this or an earlier call). */
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
    if (attempt.replayable) await this.startKeyExpiry(trx, attempt.id, now);
    else await trx.deleteFrom('idempotency_keys').where('attempt_id', '=', attempt.id).execute();
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
    return { status: attempt.response_status ?? 200, body: JSON.parse(attempt.response_body ?? 'null'), headers };
  }
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
