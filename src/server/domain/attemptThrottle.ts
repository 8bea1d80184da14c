/**
 * Throttles for password guessing and sign-up floods: a few attempts are free, then each further
 * one must wait a delay that doubles with every attempt (1 s, 2 s, 4 s, … up to a cap) — answered
 * 429 with Retry-After, without even checking the password. An attempt is counted when it
 * arrives, not when it fails, so twenty guesses sent at once cannot all slip through while the
 * first password hash is still being computed; a successful login clears its account's count.
 * A key left alone for `forgetAfterMs` starts afresh.
 *
 * Kept in process memory: with several processes (PostgreSQL) each process counts on its own, so
 * the free attempts multiply by the number of processes; the doubling delay still applies in each.
 */
import { LruCache } from '../../engine/lru';
import type { Clock } from './clock';

export interface ThrottlePolicy {
  /** Attempts allowed before any delay. */
  freeAttempts: number;
  /** Delay imposed by the first attempt beyond the free ones; doubles with each further one. */
  baseDelayMs: number;
  maxDelayMs: number;
  forgetAfterMs: number;
}

export type ThrottleAnswer = { allowed: true } | { allowed: false; retryAfterSeconds: number };

interface Count {
  attempts: number;
  lastAt: number;
  /** No attempt is admitted before this time. */
  blockedUntil: number;
}

export class AttemptThrottle {
  private readonly counts: LruCache<string, Count>;

  constructor(
    private readonly clock: Clock,
    readonly policy: ThrottlePolicy,
    capacity = 100_000,
  ) {
    this.counts = new LruCache(capacity);
  }

  /** The delay that `attempts` attempts (counted so far) impose on the next one. */
  delayAfter(attempts: number): number {
    const beyond = attempts - this.policy.freeAttempts;
    if (beyond < 0) return 0;
    return Math.min(this.policy.maxDelayMs, this.policy.baseDelayMs * 2 ** Math.min(beyond, 40));
  }

  /** Looks only: would an attempt under `key` be admitted now? */
  peek(key: string): ThrottleAnswer {
    const now = this.clock.now();
    const count = this.current(key, now);
    if (count && now < count.blockedUntil) return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((count.blockedUntil - now) / 1000)) };
    return { allowed: true };
  }

  /** Counts an attempt under `key` (call after every key of the request was admitted by `peek`). */
  count(key: string): void {
    const now = this.clock.now();
    const count = this.current(key, now) ?? { attempts: 0, lastAt: now, blockedUntil: 0 };
    count.attempts += 1;
    count.lastAt = now;
    count.blockedUntil = now + this.delayAfter(count.attempts);
    this.counts.set(key, count);
  }

  /** A success that proves the attempts were legitimate (a right password): the key starts afresh. */
  clear(key: string): void {
    this.counts.delete(key);
  }

  private current(key: string, now: number): Count | undefined {
    const count = this.counts.get(key);
    if (count && now - count.lastAt > this.policy.forgetAfterMs) {
      this.counts.delete(key);
      return undefined;
    }
    return count;
  }
}

/**
 * Admits an attempt only when every key admits it (e.g. the account and the client address), then
 * counts it under all of them; else the longest wait.
 */
export function admitAll(checks: { throttle: AttemptThrottle; key: string }[]): ThrottleAnswer {
  let wait = 0;
  for (const { throttle, key } of checks) {
    const answer = throttle.peek(key);
    if (!answer.allowed) wait = Math.max(wait, answer.retryAfterSeconds);
  }
  if (wait > 0) return { allowed: false, retryAfterSeconds: wait };
  for (const { throttle, key } of checks) throttle.count(key);
  return { allowed: true };
}
