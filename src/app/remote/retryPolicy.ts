/**
 * What to do with a response (or a dropped connection) of a paid call. Pure, so the rules of the
 * specification are readable in one place and tested alone:
 * - every retry reuses the same Idempotency-Key, so a retry is never charged twice;
 * - 409 with Retry-After (still running / refund pending) and 429 are waits, not failures;
 * - 401/402/413 are final and explained to the user.
 */
export type RetryDecision =
  | { kind: 'done' }
  | { kind: 'wait'; seconds: number; reason: string }
  | { kind: 'fail'; message: string };

export interface ResponseFacts {
  readonly status: number | 'network-error';
  readonly retryAfter: string | null;
  readonly problemType?: string;
  readonly detail?: string;
  /** 1-based count of this request's sends; bounds retries after dropped connections. */
  readonly attempt: number;
  /** Seconds already spent waiting on "come back later" answers; bounds those waits. */
  readonly waitedSeconds?: number;
}

export const MAX_ATTEMPTS = 6;
/** A request still running on the server is waited for, not abandoned after a few polls. */
export const MAX_WAIT_SECONDS = 180;

export function parseRetryAfter(value: string | null, fallbackSeconds: number): number {
  if (!value) return fallbackSeconds;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(60, seconds);
  const date = Date.parse(value);
  if (!Number.isNaN(date)) return Math.min(60, Math.max(0, (date - Date.now()) / 1000));
  return fallbackSeconds;
}

export function explainFailure(status: number, problemType?: string, detail?: string): string {
  switch (status) {
    case 400:
      return `The request was refused: ${detail ?? 'invalid input'}. Nothing was charged.`;
    case 401:
      return 'The API key was not accepted. Check the key in Remote settings, or generate a new one on the API keys page.';
    case 402:
      if (problemType?.endsWith('payment-required')) {
        return 'This server wants an API key or a per-request (x402) payment. The studio pays with an API key: add one in Remote settings.';
      }
      return 'Out of credits: nothing was charged. Buy a credit package on the Credits page, then try again.';
    case 403:
      return 'Your session expired. Log in again.';
    case 409:
      return 'This retry does not match the original request (same Idempotency-Key, different body). Start a new request.';
    case 413:
      return 'The image is too large for the service even after scaling. Use a smaller or more compressed image. Nothing was charged.';
    case 422:
      return 'No mask was found. Nothing was charged.';
    case 429:
      return `Too many of this account's recent calls found no mask or sent an unreadable image (they were refunded), so the service pauses its calls for a while. ${detail ?? ''} Nothing was charged.`.trim();
    default:
      if (status >= 500) {
        return problemType?.endsWith('engine-failure') || problemType?.endsWith('invalid-result')
          ? 'The server could not segment this image. The credit is refunded.'
          : `The server failed (${status}). ${detail ?? ''} Nothing was charged for a server failure.`.trim();
      }
      return `Unexpected response ${status}. ${detail ?? ''}`.trim();
  }
}

export function decide(facts: ResponseFacts): RetryDecision {
  const lastAttempt = facts.attempt >= MAX_ATTEMPTS;
  const patienceLeft = (facts.waitedSeconds ?? 0) < MAX_WAIT_SECONDS;
  if (facts.status === 'network-error') {
    if (lastAttempt) return { kind: 'fail', message: 'The server cannot be reached. Check the base URL and your connection.' };
    return { kind: 'wait', seconds: Math.min(8, 2 ** (facts.attempt - 1)), reason: 'Connection lost — retrying with the same Idempotency-Key' };
  }
  const status = facts.status;
  if (status >= 200 && status < 300) return { kind: 'done' };
  // "Come back later" 409s carry Retry-After; the problem type says the same if a proxy dropped the header.
  const stillRunning = facts.retryAfter !== null || /request-in-progress|refund-pending/.test(facts.problemType ?? '');
  // A used-up refunded-work budget lasts until its window ends (minutes): waiting would only look stuck.
  const budgetUsedUp = status === 429 && /refund-budget-exhausted/.test(facts.problemType ?? '');
  const retryable =
    (status === 409 && stillRunning) || (status === 429 && !budgetUsedUp) || status === 503 || status === 502 || status === 504;
  if (retryable && !patienceLeft) {
    return { kind: 'fail', message: `The service is still busy after ${MAX_WAIT_SECONDS} s. Try again in a moment: the retry reuses the same Idempotency-Key, so it is never charged twice.` };
  }
  if (retryable) {
    const reason =
      status === 429
        ? 'Rate limit reached — waiting'
        : status === 409
          ? facts.problemType?.endsWith('refund-pending')
            ? 'Waiting for the refund of the earlier attempt'
            : 'The earlier attempt is still running — waiting for its result'
          : 'The service is busy — waiting';
    return { kind: 'wait', seconds: parseRetryAfter(facts.retryAfter, 1), reason };
  }
  return { kind: 'fail', message: explainFailure(status, facts.problemType, facts.detail) };
}

/** The spec's key alphabet: letters, digits, `.`, `_`, `:`, `-`. */
export function newIdempotencyKey(): string {
  return `mw-${crypto.randomUUID()}`;
}
