import { describe, expect, it } from 'vitest';
import { IDEMPOTENCY_KEY_PATTERN } from '../../contract';
import { decide, MAX_ATTEMPTS, MAX_WAIT_SECONDS, newIdempotencyKey, parseRetryAfter } from './retryPolicy';

describe('retry policy of paid calls', () => {
  it('treats 2xx as done', () => {
    expect(decide({ status: 200, retryAfter: null, attempt: 1 })).toEqual({ kind: 'done' });
  });

  it('waits on 409 with Retry-After and on 429, honouring the header', () => {
    expect(decide({ status: 409, retryAfter: '2', attempt: 1, problemType: '/problems/request-in-progress' })).toMatchObject({ kind: 'wait', seconds: 2 });
    expect(decide({ status: 409, retryAfter: '3', attempt: 1, problemType: '/problems/refund-pending' })).toMatchObject({ kind: 'wait', seconds: 3, reason: expect.stringContaining('refund') });
    expect(decide({ status: 429, retryAfter: null, attempt: 2 })).toMatchObject({ kind: 'wait', seconds: 1 });
    // A used-up refunded-work budget is not a wait of a second or two: said at once.
    expect(decide({ status: 429, retryAfter: '540', attempt: 1, problemType: '/problems/refund-budget-exhausted', detail: 'at most 10 per window' })).toMatchObject({
      kind: 'fail',
      message: expect.stringContaining('pauses its calls'),
    });
  });

  it('fails a 409 without Retry-After (key reused with a different body)', () => {
    expect(decide({ status: 409, retryAfter: null, attempt: 1, problemType: '/problems/idempotency-key-reused' })).toMatchObject({ kind: 'fail' });
    expect(decide({ status: 409, retryAfter: null, attempt: 1, problemType: '/problems/request-in-progress' })).toMatchObject({ kind: 'wait', seconds: 1 });
  });

  it('explains 401, 402 and 413 with what to do', () => {
    expect(decide({ status: 401, retryAfter: null, attempt: 1 })).toMatchObject({ message: expect.stringContaining('API key') });
    expect(decide({ status: 402, retryAfter: null, attempt: 1 })).toMatchObject({ message: expect.stringContaining('Buy a credit package') });
    expect(decide({ status: 413, retryAfter: null, attempt: 1 })).toMatchObject({ message: expect.stringContaining('smaller') });
    // A server with per-request payment (x402) answers a keyless call 402 payment-required, not 401.
    expect(decide({ status: 402, retryAfter: null, attempt: 1, problemType: '/problems/payment-required' })).toMatchObject({
      kind: 'fail',
      message: expect.stringContaining('add one in Remote settings'),
    });
  });

  it('retries dropped connections with backoff, then gives up', () => {
    expect(decide({ status: 'network-error', retryAfter: null, attempt: 1 })).toMatchObject({ kind: 'wait', seconds: 1 });
    expect(decide({ status: 'network-error', retryAfter: null, attempt: 3 })).toMatchObject({ kind: 'wait', seconds: 4 });
    expect(decide({ status: 'network-error', retryAfter: null, attempt: MAX_ATTEMPTS })).toMatchObject({ kind: 'fail' });
  });

  it('keeps waiting on a long-running original request, bounded by time rather than polls', () => {
    const busy = { status: 409, retryAfter: '1', problemType: '/problems/request-in-progress' } as const;
    expect(decide({ ...busy, attempt: 40, waitedSeconds: 39 })).toMatchObject({ kind: 'wait' });
    expect(decide({ ...busy, attempt: 200, waitedSeconds: MAX_WAIT_SECONDS })).toMatchObject({ kind: 'fail', message: expect.stringContaining('still busy') });
  });

  it('parses Retry-After seconds and caps it', () => {
    expect(parseRetryAfter('5', 1)).toBe(5);
    expect(parseRetryAfter('600', 1)).toBe(60);
    expect(parseRetryAfter('nonsense', 1)).toBe(1);
  });

  it('makes keys the service accepts', () => {
    expect(newIdempotencyKey()).toMatch(IDEMPOTENCY_KEY_PATTERN);
    expect(newIdempotencyKey()).not.toBe(newIdempotencyKey());
  });
});
