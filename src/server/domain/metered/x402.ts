/**
 * Paying per request (x402), the spec's alternative to credits. No account and no ledger: the
 * payer's address (as verified by the facilitator) is the scope of the idempotency rules, and money
 * moves only at settlement, which happens only for a success:
 *
 *   (on arrival, in the HTTP layer: the header decoded, and the rate limit, by the payer the payment
 *   names or the client address)
 *   begin             not a payload → 402; the same signed payment again: a settled call is
 *                     replayed, a running one answered 409 (the payment is never settled twice);
 *                     match + verify (facilitator): no match / invalid → 402 payment-invalid;
 *                     unreachable → 502
 *   peek (runner)     Idempotency-Key (or the unkeyed reuse) in the payer's scope: a stored result
 *                     is replayed and the new payment is simply not settled
 *   claim → running   payment and key claimed in one transaction
 *   succeeded         facilitator /settle, then the result is stored and released with
 *                     PAYMENT-RESPONSE → settled; refused → 402 payment-settlement-failed, result
 *                     withheld; unreachable → 502, result withheld → unsettled
 *   emptied           422 empty-result, never settled → unsettled
 *   failed            500 (settled: false), never settled → unsettled
 *
 * An unsettled call releases its keys: the same payment (its nonce still unused on chain) may be
 * tried again. A `running` call whose lease ran out (its process died) no longer blocks its keys.
 */
import { createHash } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import type { Db } from '../../db/connect';
import type { Database, PaidCallsTable, PaidKeyScope, PaidKeysTable } from '../../db/schema';
import type { Clock } from '../clock';
import { DomainError } from '../errors';
import { canonicalJson } from '../fingerprint';
import { newId } from '../ids';
import type { X402Gateway } from '../x402/gateway';
import { decide, type Decision, type StoredKey } from './decision';
import { keyTtl } from './credits';
import type { Answered, Claim, MeteredCall, MeteredOutcome, Payment, PaymentMethod, RequestKey } from './runner';

export interface PaymentContext {
  /** The PAYMENT-SIGNATURE header, decoded once on arrival (X402Gateway.decode); undefined when it is not a v2 payload. */
  payload: PaymentPayload | undefined;
  /** Absolute URL of the resource, for the requirements' `resource.url`. */
  resourceUrl: string;
}

export interface X402Options {
  leaseMs: number;
}

interface KeyRef {
  payer: string;
  scope: PaidKeyScope;
  key: string;
}

/** What is known of one payment once it is verified. */
interface Verified {
  payload: PaymentPayload;
  requirements: PaymentRequirements;
  payer: string;
  paymentKey: KeyRef;
  paymentId: string;
}

function storedKeyOf(row: PaidKeysTable, owner: PaidCallsTable, paymentId: string): StoredKey<MeteredOutcome> {
  return {
    fingerprint: row.fingerprint,
    expiresAt: row.expires_at,
    status: owner.state === 'running' ? 'running' : owner.state === 'settled' ? 'answered' : 'open',
    leaseUntil: owner.lease_until,
    samePayload: owner.payment_id === paymentId,
    stored: {
      kind: 'replayed',
      status: owner.response_status ?? 200,
      json: owner.response_body ?? 'null',
      originalRequestId: owner.request_id,
      refunded: false,
      paymentResponse: owner.payment_response ?? undefined,
    },
  };
}

export class X402Payments {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly gateway: X402Gateway,
    private readonly options: X402Options,
  ) {}

  /** The request pays for itself with the payment in its PAYMENT-SIGNATURE header. */
  method(context: PaymentContext): PaymentMethod<string> {
    return { begin: (call, fingerprint) => this.begin(call, fingerprint, context) };
  }

  private async begin(call: MeteredCall<unknown>, fingerprint: string, context: PaymentContext): Promise<Payment<string> | Answered> {
    const reject = async (reason: string, detail: string) => this.gateway.paymentError(context.resourceUrl, { reason, detail });
    const { payload } = context;
    if (!payload) throw await reject('invalid_payload', 'PAYMENT-SIGNATURE is not a Base64 x402 v2 payment payload');
    const { paymentKey, paymentId } = identify(payload);

    // The same payment again (a retry after a dropped connection): never settle it twice.
    const byPayment = await this.decideFor(this.db.kysely, paymentKey, call, fingerprint, paymentId);
    if (byPayment.kind === 'conflict' && byPayment.conflict === 'payment-used') throw await this.paymentUsed(context);
    if (byPayment.kind !== 'new') return byPayment;

    const requirements = this.gateway.match(await this.gateway.requirements(), payload);
    if (!requirements) throw await reject('no_matching_requirements', 'the payment does not match the accepted requirements (scheme, network, asset, amount, payTo)');
    const verified = await this.gateway.verify(payload, requirements);
    if (!verified.valid) throw await reject(verified.reason, verified.detail);
    return this.payment(call, context, { payload, requirements, payer: verified.payer.toLowerCase(), paymentKey, paymentId });
  }

  /** A signed authorization already used for another request: x402's own 402, with the requirements. */
  private paymentUsed(context: PaymentContext): Promise<DomainError> {
    return this.gateway.paymentError(context.resourceUrl, {
      reason: 'payment_already_used',
      detail: 'this payment authorization was already used for another request',
    });
  }

  private payment(call: MeteredCall<unknown>, context: PaymentContext, paid: Verified): Payment<string> {
    const { payer } = paid;
    const refOf = ({ scope, key }: RequestKey): KeyRef => {
      // Only /pvs and /segment are payable per request; embeddings (keyed by content) take credits.
      if (scope === 'content') throw new Error('a call keyed by its content cannot be paid per request');
      return { payer, scope, key };
    };
    return {
      // Client-chosen image ids are namespaced per payer, as they are per account.
      scope: `x402:${payer}`,
      peek: (key, fingerprint) => this.decideFor(this.db.kysely, refOf(key), call, fingerprint, paid.paymentId),
      claim: async (key, fingerprint) => {
        const claim = await this.claim(call, fingerprint, paid, refOf(key));
        if (claim.kind === 'conflict' && claim.conflict === 'payment-used') throw await this.paymentUsed(context);
        return claim;
      },
      succeeded: async (callId, result, json) => {
        let settlement;
        try {
          settlement = await this.gateway.settle(paid.payload, paid.requirements);
        } catch (error) {
          await this.close(callId, 'settlement outcome unknown');
          throw error;
        }
        const paymentResponse = this.gateway.encodeSettlement(settlement);
        if (!settlement.success) {
          await this.close(callId, `settlement failed: ${settlement.errorReason ?? 'unknown'}`);
          throw new DomainError('payment-settlement-failed', `the facilitator did not settle the payment: ${settlement.errorMessage ?? settlement.errorReason}`, {
            paymentResponse,
            settled: false,
            members: { reason: settlement.errorReason ?? 'settlement_failed' },
          });
        }
        await this.complete(callId, json, paymentResponse);
        return { kind: 'answered', result, json, refunded: false, paymentResponse };
      },
      emptied: async (callId) => {
        await this.close(callId, 'empty-result');
        throw new DomainError('empty-result', 'no mask was found; the payment was not settled and can be used again', { settled: false });
      },
      failed: async (callId, failure) => {
        await this.close(callId, failure.slug);
        return new DomainError(failure.slug, failure.detail, { ...failure.extra, settled: false });
      },
    };
  }

  /** Reads one key row and its call, and applies the rules. */
  private async decideFor(
    db: Db['kysely'] | Transaction<Database>,
    ref: KeyRef,
    call: MeteredCall<unknown>,
    fingerprint: string,
    paymentId: string,
    lock = false,
  ): Promise<Decision<MeteredOutcome>> {
    const row = await db
      .selectFrom('paid_keys')
      .selectAll()
      .where('payer', '=', ref.payer)
      .where('scope', '=', ref.scope)
      .where('key', '=', ref.key)
      .$if(lock && this.db.dialect === 'postgres', (q) => q.forUpdate())
      .executeTakeFirst();
    const owner = row ? await db.selectFrom('paid_calls').selectAll().where('id', '=', row.call_id).executeTakeFirst() : undefined;
    const stored = row && owner ? storedKeyOf(row, owner, paymentId) : undefined;
    return decide(stored, { scope: ref.scope, fingerprint, forceRefresh: call.forceRefresh, now: this.clock.now() });
  }

  /** Claims the payment and the request key for a new call, re-deciding both under the write lock. */
  private async claim(call: MeteredCall<unknown>, fingerprint: string, paid: Verified, requestKey: KeyRef): Promise<Claim<string>> {
    try {
      return await this.db.transaction(async (trx): Promise<Claim<string>> => {
        for (const ref of [paid.paymentKey, requestKey]) {
          const decision = await this.decideFor(trx, ref, call, fingerprint, paid.paymentId, true);
          if (decision.kind !== 'new') return decision;
        }
        const now = this.clock.now();
        const callId = newId('pay');
        await trx
          .insertInto('paid_calls')
          .values({
            id: callId,
            payer: paid.payer,
            endpoint: call.endpoint,
            fingerprint,
            payment_id: paid.paymentId,
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
        for (const ref of [paid.paymentKey, requestKey]) {
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
        return { kind: 'claimed', ticket: callId };
      });
    } catch (error) {
      if (error instanceof ClaimRace) return { kind: 'conflict', conflict: 'in-progress' };
      throw error;
    }
  }

  /** Settled: store the response for replays; the keys live 24 h (5 min unkeyed) from now. */
  private async complete(callId: string, json: string, paymentResponse: string): Promise<void> {
    await this.db.transaction(async (trx) => {
      const now = this.clock.now();
      await trx
        .updateTable('paid_calls')
        .set({ state: 'settled', response_status: 200, response_body: json, payment_response: paymentResponse, updated_at: now, completed_at: now })
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
}

class ClaimRace extends Error {}

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
