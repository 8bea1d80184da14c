/**
 * One metered call (/pvs, /segment) as explicit atomic phases, after Brandur's rocket-rides-atomic.
 * Each phase that writes is one transaction ending at a named recovery point (attempts.state):
 *
 *   (answerFromDigest: a byte-identical keyed retry is replayed before its body is even parsed)
 *   peek             (read only)       a live stored result is replayed, a conflict answered 409
 *   prepare          (no writes)       image checked (400), worker slot reserved (503); local
 *                                      inference starts here, its result used only once charged
 *   claim + charge → charged           key claimed and one credit taken, in ONE transaction: a
 *                                      claimed key always has a charged attempt, and a 402 leaves
 *                                      nothing behind. Committed relaxed (visible at once, to every
 *                                      process); a durable commit flushes it while the engine runs,
 *                                      and nothing is answered before that flush
 *   (the engine runs outside any transaction, in a worker thread)
 *   settle         → completed         200 stored, charge kept
 *                  → refund_pending    empty / invalid / failed result stored, refund owed
 *   refund         → refunded          refund entry written against the original charge (durable)
 *
 * Whatever a crash leaves in `charged` or `refund_pending` is finished by `Recovery` and the refund
 * loop (src/server/domain/recovery.ts), in this process or any other.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import { LIMITS } from '../../contract/limits';
import { problemTypeUri, PROBLEM_TYPES } from '../../contract/problems';
import type { Db, Durability } from '../db/connect';
import type { AttemptState, AttemptsTable, Database, IdempotencyKeysTable, KeyScope } from '../db/schema';
import type { Clock } from './clock';
import { DomainError } from './errors';
import type { FaultInjector } from './faults';
import { newId } from './ids';
import { applyLedgerEntry, balanceOf } from './ledger';
import { preparedQuery } from '../db/prepared';
import { requestFingerprint } from './fingerprint';
import { timed, timedSync, type Timings } from './timings';

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
  /** Gives back what `prepare` reserved when the call does not go ahead (a queued job is withdrawn). */
  cancel(): void;
  /**
   * The work may start before the charge commits (local inference: the worst a lost race costs is
   * one engine run of our own). Not set for work that costs money elsewhere (the text upstream).
   */
  startsBeforeCharge?: boolean;
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
  /** See AttemptsTable.body_digest; given for keyed requests so that their retries take the fast path. */
  bodyDigest?: string;
  /**
   * The account's balance as read moments ago (with the API key), if it was: spares a read before
   * the engine starts. Only a hint, like that read: the charge's own conditional update decides.
   */
  balanceHint?: number;
  /** Filled in with the phases' durations (Server-Timing). */
  timings?: Timings;
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
  startKeyExpiry: preparedQuery<[explicitUntil: number, implicitUntil: number, attemptId: string]>((db, $) =>
    db
      .updateTable('idempotency_keys')
      .set({ expires_at: sql<number>`case when scope = 'explicit' then cast(${$(0)} as bigint) else cast(${$(1)} as bigint) end` })
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
    const fingerprint = timedSync(call.timings, 'idempotency', () => requestFingerprint(call.method, call.path, call.body));

    // A forced refresh without a key is always a new attempt: no key to look up or to hold.
    if (!call.idempotencyKey && call.forceRefresh) return this.attempt(call, fingerprint);

    // Peek: replays and conflicts need no image check, no worker and no write.
    const peeked = await timed(call.timings, 'idempotency', () => this.peek(call, fingerprint));
    if (peeked.kind === 'replay') return this.replay(peeked.attempt);
    if (peeked.kind === 'conflict') throw peeked.error;

    const leave = this.enterFlight(call, fingerprint);
    try {
      return await this.attempt(call, fingerprint);
    } finally {
      leave();
    }
  }

  /**
   * Calls of this process not yet settled, by key: the same request again while its twin runs here
   * gets the 409 that the twin's claim would give it, before it reserves a worker slot or starts
   * an engine run that would only be dropped. Across processes the database decides, as always.
   */
  private readonly inFlight = new Map<string, string>();

  private enterFlight(call: MeteredCall<unknown>, fingerprint: string): () => void {
    const { scope, key } = this.keyOf(call, fingerprint);
    const flight = `${call.accountId}\u0000${scope}\u0000${key}`;
    const running = this.inFlight.get(flight);
    if (running === fingerprint) {
      throw new DomainError('request-in-progress', undefined, { retryAfterSeconds: this.options.inProgressRetryAfterSeconds });
    }
    // Another body under the same key: its twin may yet fail before claiming, so the database judges it.
    if (running !== undefined) return () => undefined;
    this.inFlight.set(flight, fingerprint);
    return () => this.inFlight.delete(flight);
  }

  /** A call that is neither a replay nor a conflict so far: prepare, claim + charge, engine, settle. */
  private async attempt<Res>(call: MeteredCall<Res>, fingerprint: string): Promise<CallOutcome> {
    const work = await timed(call.timings, 'prepare', () => call.prepare(call.accountId));

    // Local inference starts now, alongside the claim and charge, so that neither the charge's
    // transaction nor the hand-over to the worker thread waits for the other. Its result is used
    // only once the charge has committed; when the claim loses (a duplicate, no credit) the job is
    // withdrawn if still queued, or its answer dropped. An account without credit gets its 402
    // before anything starts, so the engine never runs for one.
    let running: Promise<Res> | undefined;
    if (work.startsBeforeCharge) {
      // A hint before the work starts; the charge itself decides.
      if ((call.balanceHint ?? (await balanceOf(this.db.kysely, call.accountId))) < LIMITS.creditsPerCall) {
        work.cancel();
        throw new DomainError('insufficient-credits');
      }
      running = runWithFaults(this.faults, work);
      running.catch(() => undefined); // observed below once the charge is in, or abandoned with the claim
      // The charge waits one timer turn (about a millisecond) so that the worker thread wakes to its
      // job while this thread is idle: with as many inference threads as cores, a busy event loop
      // slowed that hand-over from 0.17 to 0.25–0.76 ms (p50, bench:api). The charge still commits
      // long before the engine is done.
      await new Promise((resolve) => setTimeout(resolve, 0));
    }

    // Claim the key and charge one credit, atomically. The commit is visible at once, so a concurrent
    // duplicate sees the claim, but not yet flushed to disk: the flush runs while the engine does,
    // and no answer goes out before both are done.
    let claim: Claim;
    try {
      claim = await timed(call.timings, 'charge', () => this.claimAndCharge(call, fingerprint, 'relaxed'));
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

    // Outside any transaction: the engine, and meanwhile the flush that makes the charge durable.
    let result: Res | undefined;
    let failure: DomainError | undefined;
    running ??= runWithFaults(this.faults, work);
    // Started once the job is on its way to the worker: SQLite's flush holds this thread meanwhile.
    const flushing = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.makeChargeDurable(attemptId));
    try {
      const [ran, flushed] = await Promise.allSettled([running, flushing]);
      if (ran.status === 'rejected') throw ran.reason;
      // A charge that may not be on disk is not answered: refunded like any failure after the charge.
      if (flushed.status === 'rejected') throw new DomainError('internal-error', 'the charge could not be made durable');
      result = ran.value;
      const valid = timedSync(call.timings, 'check', () => call.isValid(ran.value));
      if (!valid) failure = new DomainError('invalid-result');
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
      // Serialized once: stored for replays and sent as it is.
      const json = JSON.stringify(result);
      const settled = await timed(call.timings, 'settle', () => this.settle(attemptId, 'completed', 200, json, true));
      if (!settled) throw this.abandonedError(call.requestId);
      return { status: 200, body: result, rawBody: json, headers: {} };
    }
    if (!failure) {
      const settled = await this.settle(attemptId, 'refund_pending', 200, JSON.stringify(result ?? null), true);
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
    const settled = await this.settle(attemptId, 'refund_pending', failure.status, JSON.stringify(problem), false, failure.detail);
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
    forceRefresh: boolean,
    fingerprint: string,
    now: number,
  ): Decision {
    if (!existing || !attempt) return { kind: 'new' };
    const live = existing.expires_at === null || existing.expires_at > now;
    // An explicit key beats X-Force-Refresh; force-refresh only bypasses the unkeyed reuse.
    const bypass = scope === 'implicit' && forceRefresh;
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
    const found = await this.keyWithAttempt(this.db.kysely, call.accountId, scope, key);
    return this.decide(found?.key, found?.attempt, scope, call.forceRefresh, fingerprint, this.clock.now());
  }

  /**
   * The fast path of a keyed retry: when the key's attempt was made from exactly these bytes (same
   * method and path too), its answer is known before the body is parsed or validated. Returns the
   * stored replay, throws the 409 of an attempt still running or awaiting its refund, and returns
   * undefined for anything else (unknown key, other bytes, expired key): that takes the full path,
   * where the fingerprint decides.
   */
  async answerFromDigest(accountId: string, idempotencyKey: string, bodyDigest: string): Promise<CallOutcome | undefined> {
    const found = await this.keyWithAttempt(this.db.kysely, accountId, 'explicit', idempotencyKey);
    if (!found || found.attempt.body_digest !== bodyDigest) return undefined;
    const decision = this.decide(found.key, found.attempt, 'explicit', false, found.key.fingerprint, this.clock.now());
    if (decision.kind === 'replay') return this.replay(decision.attempt);
    if (decision.kind === 'conflict') throw decision.error;
    return undefined;
  }

  /**
   * A key's row and its attempt's, in one read. `lockKey` (inside the claim's transaction): the key
   * row only is locked on PostgreSQL — the lock order is attempt → key → account, and a claim must
   * not hold an attempt's lock while it waits for a key's.
   */
  private async keyWithAttempt(
    db: Kysely<Database>,
    accountId: string,
    scope: KeyScope,
    key: string,
    { lockKey = false } = {},
  ): Promise<{ key: IdempotencyKeysTable; attempt: AttemptsTable } | undefined> {
    const query = lockKey && this.db.dialect === 'postgres' ? Q.keyWithAttemptLocked : Q.keyWithAttempt;
    const [row] = (await query.run(this.db.kysely, db, accountId, scope, key)).rows;
    if (!row) return undefined;
    const { key_fingerprint, key_expires_at, ...attempt } = row;
    return {
      key: { account_id: accountId, scope, key, fingerprint: key_fingerprint, attempt_id: attempt.id, expires_at: key_expires_at },
      attempt,
    };
  }

  /**
   * Claim the key (under a row lock on PostgreSQL, the write lock on SQLite), re-decide, and for a
   * new attempt insert it as `charged` together with its ledger charge. Throws
   * DomainError('insufficient-credits') with nothing written.
   */
  async claimAndCharge(call: MeteredCall<unknown>, fingerprint: string, durability: Durability = 'durable'): Promise<Claim> {
    const { scope, key } = this.keyOf(call, fingerprint);
    try {
      return await this.db.transaction(async (trx): Promise<Claim> => {
        const now = this.clock.now();
        const found = await this.keyWithAttempt(trx, call.accountId, scope, key, { lockKey: true });
        const existing = found?.key;
        const decision = this.decide(existing, found?.attempt, scope, call.forceRefresh, fingerprint, now);
        if (decision.kind !== 'new') return decision;

        const attemptId = await this.insertAttempt(trx, call, fingerprint, now);
        const root = this.db.kysely;
        if (existing) {
          await Q.reclaimKey.run(root, trx, attemptId, fingerprint, call.accountId, scope, key);
        } else {
          const inserted = await Q.claimKey.run(root, trx, call.accountId, scope, key, fingerprint, attemptId);
          // Another process claimed the same key between our read and write: it is running now.
          if (Number(inserted.numAffectedRows ?? 0) === 0) throw new ClaimRace();
        }
        await applyLedgerEntry(trx, { accountId: call.accountId, amount: -LIMITS.creditsPerCall, kind: 'charge', reference: attemptId, now }, root);
        return { kind: 'new', attemptId };
      }, durability);
    } catch (error) {
      if (error instanceof ClaimRace) {
        const retryAfterSeconds = this.options.inProgressRetryAfterSeconds;
        return { kind: 'conflict', error: new DomainError('request-in-progress', undefined, { retryAfterSeconds }) };
      }
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

  private async insertAttempt(trx: Transaction<Database>, call: MeteredCall<unknown>, fingerprint: string, now: number) {
    const id = newId('att');
    await Q.insertAttempt.run(
      this.db.kysely,
      trx,
      id,
      call.accountId,
      call.endpoint,
      fingerprint,
      call.idempotencyKey ?? null,
      call.bodyDigest ?? null,
      call.requestId,
      this.instanceId,
      now + this.options.leaseMs,
      now,
    );
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
    await applyLedgerEntry(
      trx,
      { accountId: attempt.account_id, amount: LIMITS.creditsPerCall, kind: 'refund', reference: attempt.id, now },
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
