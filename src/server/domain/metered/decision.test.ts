import { describe, expect, it } from 'vitest';
import { decide, type Asking, type Decision, type StoredKey } from './decision';

const NOW = 1_000_000;
const asking = (over: Partial<Asking> = {}): Asking => ({ scope: 'explicit', fingerprint: 'fp', forceRefresh: false, now: NOW, ...over });
const stored = (over: Partial<StoredKey<string>> = {}): StoredKey<string> => ({
  fingerprint: 'fp',
  expiresAt: null,
  status: 'answered',
  stored: 'the stored answer',
  ...over,
});
const NEW: Decision<string> = { kind: 'new' };
const REPLAY: Decision<string> = { kind: 'replay', stored: 'the stored answer' };
const conflict = (c: string) => ({ kind: 'conflict', conflict: c });

describe('decide: the idempotency rules of every payment method', () => {
  it.each<[string, StoredKey<string> | undefined, Asking, Decision<string> | ReturnType<typeof conflict>]>([
    ['nothing stored → new', undefined, asking(), NEW],
    ['a stored answer, same request → replay', stored(), asking(), REPLAY],
    ['a stored answer, live until later → replay', stored({ expiresAt: NOW + 1 }), asking(), REPLAY],
    ['an expired key → new', stored({ expiresAt: NOW }), asking(), NEW],
    ['another request under the key → 409 key reused', stored({ fingerprint: 'other' }), asking(), conflict('key-reused')],
    ['running → 409 in progress', stored({ status: 'running' }), asking(), conflict('in-progress')],
    ['running, another request → key reused wins', stored({ status: 'running', fingerprint: 'other' }), asking(), conflict('key-reused')],
    ['refund pending → 409 refund pending', stored({ status: 'refund-pending' }), asking(), conflict('refund-pending')],
    ['open (refunded failure, unsettled) → new', stored({ status: 'open' }), asking(), NEW],
    ['running past its lease → new (its process died)', stored({ status: 'running', leaseUntil: NOW - 1 }), asking(), NEW],
    ['running within its lease → 409', stored({ status: 'running', leaseUntil: NOW }), asking(), conflict('in-progress')],
    ['force refresh without a key bypasses the unkeyed reuse', stored(), asking({ scope: 'implicit', forceRefresh: true }), NEW],
    ['force refresh with an explicit key: the key wins', stored(), asking({ forceRefresh: true }), REPLAY],
    ['unkeyed reuse → replay', stored(), asking({ scope: 'implicit' }), REPLAY],
    ['content key (an embedding of the same photo) → replay', stored(), asking({ scope: 'content' }), REPLAY],
    ['content key with force refresh: the content wins', stored(), asking({ scope: 'content', forceRefresh: true }), REPLAY],
    ['content key, still running → 409 in progress', stored({ status: 'running' }), asking({ scope: 'content' }), conflict('in-progress')],
    ['payment: the same payload that paid → replay', stored({ samePayload: true }), asking({ scope: 'payment' }), REPLAY],
    ['payment: the same authorization, another payload → used', stored({ samePayload: false }), asking({ scope: 'payment' }), conflict('payment-used')],
    ['payment: another request → used (not key reused)', stored({ fingerprint: 'other', samePayload: true }), asking({ scope: 'payment' }), conflict('payment-used')],
    ['payment: running, same request → 409 in progress', stored({ status: 'running', samePayload: false }), asking({ scope: 'payment' }), conflict('in-progress')],
    ['payment: open → new (the nonce may pay again)', stored({ status: 'open', samePayload: false }), asking({ scope: 'payment' }), NEW],
  ])('%s', (_name, existing, question, expected) => {
    expect(decide(existing, question)).toEqual(expected);
  });
});
