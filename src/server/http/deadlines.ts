/**
 * How long a client may take: its headers must arrive within `headersTimeoutMs` and the whole
 * request (headers and body) within `requestTimeoutMs`, else Node answers through our client-error
 * handler (408 request-timeout) and the socket is closed; a keep-alive connection idle for
 * `keepAliveTimeoutMs` between requests is closed. Without them a client trickling a byte every
 * few seconds holds a socket (and its parser) open for as long as it likes.
 */

export interface Deadlines {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

export const DEFAULT_DEADLINES: Deadlines = { headersTimeoutMs: 30_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000 };

/** Node refuses headers given longer than the whole request; a 0 would switch a deadline off. */
export function checkDeadlines(deadlines: Deadlines): Deadlines {
  for (const [name, value] of Object.entries(deadlines)) {
    if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number of milliseconds ≥ 1, got ${value}`);
  }
  if (deadlines.headersTimeoutMs > deadlines.requestTimeoutMs) {
    throw new Error(`HEADERS_TIMEOUT_MS (${deadlines.headersTimeoutMs}) must not exceed REQUEST_TIMEOUT_MS (${deadlines.requestTimeoutMs})`);
  }
  return deadlines;
}

/**
 * Fastify's server options for them. Node checks the deadlines of open connections every
 * `connectionsCheckingInterval` (30 s by default, which would let a 1 s deadline run 31 s): a
 * tenth of the shorter deadline, between 100 ms and 1 s, keeps them to within 10 %.
 */
export function deadlineServerOptions(deadlines: Deadlines) {
  const shorter = Math.min(deadlines.headersTimeoutMs, deadlines.requestTimeoutMs);
  return {
    http: {
      headersTimeout: deadlines.headersTimeoutMs,
      requestTimeout: deadlines.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, Math.max(100, Math.round(shorter / 10))),
    },
    requestTimeout: deadlines.requestTimeoutMs,
    keepAliveTimeout: deadlines.keepAliveTimeoutMs,
  };
}
