/**
 * How long a client told 409 request-in-progress should wait before asking again: about as long as
 * the call it collides with still needs — the engine time of recent calls, times the rounds of work
 * queued ahead of it on the workers. Never less than the configured minimum; an estimate, not a promise.
 */

/** Recent durations of the engine phase (ms), smoothed: one slow call moves the estimate, it does not set it. */
export class RunTimes {
  private smoothedMs: number | undefined;

  record(ms: number): void {
    this.smoothedMs = this.smoothedMs === undefined ? ms : this.smoothedMs + 0.3 * (ms - this.smoothedMs);
  }

  get typicalMs(): number | undefined {
    return this.smoothedMs;
  }
}

/** Work on the inference workers now: jobs running or queued, and how many run at once. */
export interface Backlog {
  jobs: number;
  workers: number;
}

export function inProgressRetryAfterSeconds(minimumSeconds: number, typicalRunMs: number | undefined, backlog?: Backlog): number {
  if (typicalRunMs === undefined) return minimumSeconds;
  const rounds = backlog && backlog.workers > 0 ? Math.max(1, Math.ceil(backlog.jobs / backlog.workers)) : 1;
  return Math.max(minimumSeconds, Math.ceil((typicalRunMs * rounds) / 1000));
}
