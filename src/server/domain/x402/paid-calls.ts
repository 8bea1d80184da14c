/**
 * One request paid per request (x402), the spec's alternative to credits. No account and no
 * ledger: the payer's address (as verified by the facilitator) is the scope of the idempotency
 * rules, and money moves only at settlement, which happens only for a success:
 *
 *   payment peek      (read only)   the same signed payment again: a settled call is replayed,
 *                                   a running one answered 409; the payment is never settled twice
 *   match + verify    (facilitator) no match / invalid → 402 payment-invalid; unreachable → 502
 *   key peek          (read only)   Idempotency-Key (or the unkeyed 5-minute reuse) in the payer's
 *                                   scope: a stored result is replayed and the new payment is simply
 *                                   not settled; conflicts → 409 as for credits
 *   prepare           (no writes)   image check (400), worker slot (503)
 *   claim           → running       payment and key claimed in one transaction
 *   (the engine runs here)
 *   success         → settle        facilitator /settle, then the result is stored and released
 *                                   with PAYMENT-RESPONSE → settled (replayable for 24 h)
 *                                   refused → 402 payment-settlement-failed, result withheld
 *                                   unreachable → 502, result withheld → unsettled
 *   empty result    → unsettled     422 empty-result, never settled
 *   engine failure  → unsettled     500 engine-failure (settled: false), never settled
 *
 * An unsettled call releases its keys: the same payment (its nonce still unused on chain) may be
 * tried again. A `running` call whose lease ran out (its process died) no longer blocks its keys.
 */
import { createHash } from 'node:crypto';
import type { Transaction } from 'kysely';
import { LIMITS } from '../../../contract/limits';
import type { Db } from '../../db/connect';
import type { Database, PaidCallsTable, PaidKeyScope, PaidKeysTable } from '../../db/schema';
import { runWithFaults, type CallOutcome, type MeteredCall } from '../billing';
import type { Clock } from '../clock';
import { DomainError } from '../errors';
import type { FaultInjector } from '../faults';
import { canonicalJson, requestFingerprint } from '../fingerprint';
import { newId } from '../ids';
import type { RateLimiter } from '../rate-limit';
import type { PaymentPayload } from '@x402/core/types';
import type { X402Gateway } from './gateway';

export interface PaymentContext {
  /** The PAYMENT-SIGNATURE header as received. */
  header: string;
  /** Absolute URL of the resource, for the requirements' `resource.url`. */
  resourceUrl: string;
}

export interface PaidCallOptions {
  leaseMs: number;
  inProgressRetryAfterSeconds: number;
}

type Decision = { kind: 'new' } | { kind: 'replay'; call: PaidCallsTable } | { kind: 'conflict'; error: DomainError };
type Claim = Exclude<Decision, { kind: 'new' }> | { kind: 'claimed'; callId: string };

interface KeyRef {
  payer: string;
  scope: PaidKeyScope;
  key: string;
}

const keyTtl = (scope: PaidKeyScope): number => (scope === 'implicit' ? LIMITS.unkeyedResultReuseMs : LIMITS.keyedResultReuseMs);

class ClaimRace extends Error {}

export class PaidCalls {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly gateway: X402Gateway,
    private readonly rateLimiter: RateLimiter,
    private readonly faults: FaultInjector,
    private readonly options: PaidCallOptions,
  ) {}

  async run<Res>(call: MeteredCall<Res>, payment: PaymentContext): Promise<CallOutcome> {
    const fingerprint = requestFingerprint(call.method, call.path, call.body);
    const reject = async (reason: string, detail: string) => this.gateway.paymentError(payment.resourceUrl, { reason, detail });

    const payload = this.gateway.decode(payment.header);
    if (!payload) throw await reject('invalid_payload', 'PAYMENT-SIGNATURE is not a Base64 x402 v2 payment payload');
    const { paymentKey, paymentId } = identify(payload);

    // The same payment again (a retry after a dropped connection): never settle it twice.
    const byPayment = await this.decideFor(this.db.kysely, paymentKey, call, fingerprint, paymentId);
    if (byPayment.kind === 'replay') return this.replay(byPayment.call);
    if (byPayment.kind === 'conflict') {
      if (byPayment.error.slug === 'payment-invalid') throw await reject('payment_already_used', byPayment.error.detail!);
      throw byPayment.error;
    }

    const accepts = await this.gateway.requirements();
    const requirements = this.gateway.match(accepts, payload);
    if (!requirements) throw await reject('no_matching_requirements', 'the payment does not match the accepted requirements (scheme, network, asset, amount, payTo)');
    const verified = await this.gateway.verify(payload, requirements);
    if (!verified.valid) throw await reject(verified.reason, verified.detail);
    const payer = verified.payer.toLowerCase();

    const admission = await this.rateLimiter.admit(`x402:${payer}`);
    if (!admission.admitted) {
      throw new DomainError('rate-limited', `at most ${this.rateLimiter.limit} requests per second per payer`, {
        retryAfterSeconds: admission.retryAfterSeconds,
      });
    }

    // Idempotency rules in the payer's scope. A replay leaves this (new) payment unsettled.
    const requestKey: KeyRef = call.idempotencyKey
      ? { payer, scope: 'explicit', key: call.idempotencyKey }
      : { payer, scope: 'implicit', key: fingerprint };
    const byKey = await this.decideFor(this.db.kysely, requestKey, call, fingerprint, paymentId);
    if (byKey.kind === 'replay') return this.replay(byKey.call);
    if (byKey.kind === 'conflict') throw byKey.error;

    // Client-chosen image ids are namespaced per payer, as they are per account.
    const work = await call.prepare(`x402:${payer}`);
    let claim: Claim;
    try {
      claim = await this.claim(call, fingerprint, payer, paymentKey, paymentId, requestKey);
    } catch (error) {
      work.cancel();
      throw error;
    }
    if (claim.kind !== 'claimed') {
      work.cancel();
      if (claim.kind === 'replay') return this.replay(claim.call);
      if (claim.error.slug === 'payment-invalid') throw await reject('payment_already_used', claim.error.detail!);
      throw claim.error;
    }
    const { callId } = claim;

    let result: Res;
    try {
      result = await runWithFaults(this.faults, work);
      if (!call.isValid(result)) throw new DomainError('invalid-result');
    } catch (error) {
      const failure =
        error instanceof DomainError ? error : new DomainError('engine-failure', error instanceof Error ? error.message : String(error));
      await this.close(callId, failure.slug);
      throw new DomainError(failure.slug, failure.detail, { ...failure.extra, members: { ...failure.extra.members, settled: false } });
    } finally {
      work.cancel();
    }

    if (call.isEmpty(result)) {
      await this.close(callId, 'empty-result');
      throw new DomainError('empty-result', 'no mask was found; the payment was not settled and can be used again', {
        members: { settled: false },
      });
    }

    let settlement;
    try {
      settlement = await this.gateway.settle(payload, requirements);
    } catch (error) {
      await this.close(callId, 'settlement outcome unknown');
      throw error;
    }
    const paymentResponse = this.gateway.encodeSettlement(settlement);
    if (!settlement.success) {
      await this.close(callId, `settlement failed: ${settlement.errorReason ?? 'unknown'}`);
      throw new DomainError('payment-settlement-failed', `the facilitator did not settle the payment: ${settlement.errorMessage ?? settlement.errorReason}`, {
        headers: { 'PAYMENT-RESPONSE': paymentResponse, 'Cache-Control': 'no-store' },
        members: { reason: settlement.errorReason ?? 'settlement_failed', settled: false },
      });
    }
    await this.complete(callId, result, paymentResponse);
    return { status: 200, body: result, headers: { 'PAYMENT-RESPONSE': paymentResponse } };
  }

  /** The rules for one key row and its call. Pure apart from the reads. */
  private async decideFor(
    db: Db['kysely'] | Transaction<Database>,
    ref: KeyRef,
    call: MeteredCall<unknown>,
    fingerprint: string,
    paymentId: string,
    lock = false,
  ): Promise<Decision> {
    const row = await db
      .selectFrom('paid_keys')
      .selectAll()
      .where('payer', '=', ref.payer)
      .where('scope', '=', ref.scope)
      .where('key', '=', ref.key)
      .$if(lock && this.db.dialect === 'postgres', (q) => q.forUpdate())
      .executeTakeFirst();
    const owner = row ? await db.selectFrom('paid_calls').selectAll().where('id', '=', row.call_id).executeTakeFirst() : undefined;
    return this.decide(row, owner, ref.scope, call.forceRefresh, fingerprint, paymentId, this.clock.now());
  }

  private decide(
    row: PaidKeysTable | undefined,
    owner: PaidCallsTable | undefined,
    scope: PaidKeyScope,
    forceRefresh: boolean,
    fingerprint: string,
    paymentId: string,
    now: number,
  ): Decision {
    if (!row || !owner) return { kind: 'new' };
    const live = row.expires_at === null || row.expires_at > now;
    if (!live || (scope === 'implicit' && forceRefresh)) return { kind: 'new' };
    if (owner.state === 'running' && owner.lease_until < now) return { kind: 'new' };
    // A signed authorization belongs to the request it was first sent with, and only the exact
    // payment that paid gets the stored result: the authorization alone is public once on chain.
    if (scope === 'payment' && (row.fingerprint !== fingerprint || (owner.state === 'settled' && owner.payment_id !== paymentId))) {
      return { kind: 'conflict', error: new DomainError('payment-invalid', 'this payment authorization was already used for another request') };
    }
    if (row.fingerprint !== fingerprint) return { kind: 'conflict', error: new DomainError('idempotency-key-reused') };
    if (owner.state === 'running') {
      return { kind: 'conflict', error: new DomainError('request-in-progress', undefined, { retryAfterSeconds: this.options.inProgressRetryAfterSeconds }) };
    }
    if (owner.state === 'settled') return { kind: 'replay', call: owner };
    return { kind: 'new' };
  }

  /** Claims the payment and the request key for a new call, re-deciding both under the write lock. */
  private async claim(
    call: MeteredCall<unknown>,
    fingerprint: string,
    payer: string,
    paymentKey: KeyRef,
    paymentId: string,
    requestKey: KeyRef,
  ): Promise<Claim> {
    try {
      return await this.db.transaction(async (trx) => {
        for (const ref of [paymentKey, requestKey]) {
          const decision = await this.decideFor(trx, ref, call, fingerprint, paymentId, true);
          if (decision.kind !== 'new') return decision;
        }
        const now = this.clock.now();
        const callId = newId('pay');
        await trx
          .insertInto('paid_calls')
          .values({
            id: callId,
            payer,
            endpoint: call.endpoint,
            fingerprint,
            payment_id: paymentId,
            idempotency_key: call.idempotencyKey ?? null,
            state: 'running',
            request_id: call.requestId,
            lease_until: now + this.options.leaseMs,
            response_status: null,
            response_body: null,
            payment_response: null,
            failure: null,
            created_at: now,
            updated_at: now,
            completed_at: null,
          })
          .execute();
        for (const ref of [paymentKey, requestKey]) {
          const taken = await trx
            .updateTable('paid_keys')
            .set({ call_id: callId, fingerprint, expires_at: null })
            .where('payer', '=', ref.payer)
            .where('scope', '=', ref.scope)
            .where('key', '=', ref.key)
            .executeTakeFirst();
          if (Number(taken.numUpdatedRows) > 0) continue;
          const inserted = await trx
            .insertInto('paid_keys')
            .values({ ...ref, fingerprint, call_id: callId, expires_at: null })
            .onConflict((oc) => oc.columns(['payer', 'scope', 'key']).doNothing())
            .executeTakeFirst();
          // Another process claimed the same key between our read and write: it is running now.
          if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) throw new ClaimRace();
        }
        return { kind: 'claimed' as const, callId };
      });
    } catch (error) {
      if (error instanceof ClaimRace) {
        return { kind: 'conflict', error: new DomainError('request-in-progress', undefined, { retryAfterSeconds: this.options.inProgressRetryAfterSeconds }) };
      }
      throw error;
    }
  }

  /** Settled: store the response for replays; the keys live 24 h (5 min unkeyed) from now. */
  private async complete(callId: string, body: unknown, paymentResponse: string): Promise<void> {
    await this.db.transaction(async (trx) => {
      const now = this.clock.now();
      await trx
        .updateTable('paid_calls')
        .set({ state: 'settled', response_status: 200, response_body: JSON.stringify(body), payment_response: paymentResponse, updated_at: now, completed_at: now })
        .where('id', '=', callId)
        .execute();
      for (const scope of ['explicit', 'implicit', 'payment'] as const) {
        await trx
          .updateTable('paid_keys')
          .set({ expires_at: now + keyTtl(scope) })
          .where('call_id', '=', callId)
          .where('scope', '=', scope)
          .execute();
      }
    });
  }

  /** Not settled: nothing to replay, the keys (and the payment) are free for a new attempt. */
  private async close(callId: string, failure: string): Promise<void> {
    await this.db.transaction(async (trx) => {
      const now = this.clock.now();
      await trx.deleteFrom('paid_keys').where('call_id', '=', callId).execute();
      await trx.updateTable('paid_calls').set({ state: 'unsettled', failure, updated_at: now, completed_at: now }).where('id', '=', callId).execute();
    });
  }

  private replay(call: PaidCallsTable): CallOutcome {
    const headers: Record<string, string> = {
      'X-Idempotent-Replayed': 'true',
      'X-Service-Original-Request-ID': call.request_id,
    };
    if (call.payment_response) headers['PAYMENT-RESPONSE'] = call.payment_response;
    return { status: call.response_status ?? 200, body: undefined, rawBody: call.response_body ?? 'null', headers };
  }
}

/**
 * A payment is identified by what the payer signed (for EIP-3009: the authorization, whose nonce
 * is unique) on its network and asset — not by the header's bytes, which a client may vary (for
 * example the `resource` echo) while reusing one authorization. `paymentId` is the exact payload,
 * stored with the call.
 */
function identify(payload: PaymentPayload): { paymentKey: KeyRef; paymentId: string } {
  const sha256 = (value: unknown) => createHash('sha256').update(canonicalJson(value)).digest('hex');
  const signed = (payload.payload as { authorization?: unknown }).authorization ?? payload.payload;
  return {
    paymentKey: { payer: '', scope: 'payment', key: sha256({ network: payload.accepted.network, asset: payload.accepted.asset, signed }) },
    paymentId: sha256(payload),
  };
}
