/**
 * The inference backend as the accounts see it: per-account admission and a fair queue in front
 * of the worker pool (or any InferenceBackend). Admission still takes the pool's place first (its
 * bounded queue: 503 when full), then the account's own ceiling: an account holding
 * `perAccountQueued` jobs (running or waiting) gets 429 `account-queue-full` instead of taking the
 * rest of the queue from everyone else. Jobs then wait here, one FIFO per account, and reach the
 * pool only when a worker is free, in FairQueue's order, at most `perAccountRunning` of one
 * account at a time: the pool's own FIFO never holds a backlog that would serve accounts in
 * arrival order. A quick job (a click on a photo a worker already holds: a decoder run) may go beyond
 * that share while workers are free: it keeps a worker for so short a time that nobody waits on it
 * for long, and one account's clicks can then use every core (a second worker pays the photo's
 * encoder run once, then holds it too). Long jobs (a new photo's encoder run,
 * text prompts, segment everything) cannot be taken back once started, so they keep to the share,
 * and the rest of the workers stay free for the others.
 */
import { JobWithdrawnError, type EngineJob, type InferenceBackend, type InferenceSlot } from '../inference/pool';
import { DomainError } from './errors';
import { FairQueue } from './fairQueue';

export interface FairnessSettings {
  /** Jobs one account may hold at once, running or waiting; more → 429 account-queue-full. */
  perAccountQueued: number;
  /** Jobs of one account on the workers at once. */
  perAccountRunning: number;
  /** Retry-After of a 429 account-queue-full. */
  retryAfterSeconds: number;
}

export const DEFAULT_FAIRNESS: FairnessSettings = { perAccountQueued: 4, perAccountRunning: 1, retryAfterSeconds: 2 };

interface Waiting {
  job: EngineJob<unknown>;
  inner: InferenceSlot;
  resolve(result: unknown): void;
  reject(error: Error): void;
}

/** Counts per account; an account at zero has no entry, so the maps follow the active accounts. */
function countUp(counts: Map<string, number>, account: string): void {
  counts.set(account, (counts.get(account) ?? 0) + 1);
}

function countDown(counts: Map<string, number>, account: string): void {
  const left = (counts.get(account) ?? 1) - 1;
  if (left > 0) counts.set(account, left);
  else counts.delete(account);
}

export class FairInferenceBackend implements InferenceBackend {
  private readonly queue = new FairQueue<Waiting>();
  /** Jobs per account from admission until they settle or are released. */
  private readonly reserved = new Map<string, number>();
  private readonly running = new Map<string, number>();
  private runningTotal = 0;

  readonly encoderModel: InferenceBackend['encoderModel'];

  constructor(
    private readonly inner: InferenceBackend,
    private readonly settings: FairnessSettings = DEFAULT_FAIRNESS,
  ) {
    this.encoderModel = inner.encoderModel && (() => inner.encoderModel!());
  }

  get description(): string {
    return this.inner.description;
  }

  backlog(): { jobs: number; workers: number } {
    let jobs = 0;
    for (const n of this.reserved.values()) jobs += n;
    return { jobs, workers: this.workers() };
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** How many jobs may be on the pool at once: its workers (one when it does not say). */
  private workers(): number {
    return Math.max(1, this.inner.backlog?.().workers ?? 1);
  }

  /**
   * A place for one job of `account` (the payer's scope). undefined when the pool is full (503);
   * throws 429 account-queue-full when the account already holds its share.
   */
  tryReserve(account = ''): InferenceSlot | undefined {
    const held = this.reserved.get(account) ?? 0;
    if (held >= this.settings.perAccountQueued) {
      throw new DomainError('account-queue-full', `this account already has ${held} calls running or waiting for a worker (at most ${this.settings.perAccountQueued})`, {
        retryAfterSeconds: this.settings.retryAfterSeconds,
      });
    }
    const inner = this.inner.tryReserve(account);
    if (!inner) return undefined;
    countUp(this.reserved, account);
    let done = false;
    const free = () => {
      if (done) return;
      done = true;
      countDown(this.reserved, account);
    };
    let waiting: Waiting | undefined;
    return {
      run: <Result>(job: EngineJob<Result>) => {
        if (waiting || done) return Promise.reject(new Error('inference slot used twice'));
        return new Promise<Result>((resolve, reject) => {
          const entry: Waiting = { job, inner, resolve: (result) => resolve(result as Result), reject };
          waiting = entry;
          this.queue.push(account, entry);
          this.pump();
        }).finally(free);
      },
      release: () => {
        if (!waiting) {
          inner.release();
          return free();
        }
        if (this.queue.remove(account, waiting)) {
          inner.release();
          waiting.reject(new JobWithdrawnError('the job was withdrawn before a worker took it'));
          return;
        }
        // On the pool: the pool withdraws it if no worker has taken it yet.
        inner.release();
      },
    };
  }

  /** Hands waiting jobs to the pool while it has a free worker, in the fair order. */
  private pump(): void {
    while (this.runningTotal < this.workers()) {
      const next = this.queue.next((account, item) => (this.running.get(account) ?? 0) < this.settings.perAccountRunning || this.inner.isQuick?.(item.job) === true);
      if (!next) return;
      const { account, item } = next;
      this.runningTotal += 1;
      countUp(this.running, account);
      const started = performance.now();
      const settle = () => {
        this.runningTotal -= 1;
        countDown(this.running, account);
        this.queue.charge(account, performance.now() - started);
        this.pump();
        if (this.runningTotal === 0) this.queue.forgetUsage();
      };
      item.inner.run(item.job).then(
        (result) => {
          settle();
          item.resolve(result);
        },
        (error: Error) => {
          settle();
          item.reject(error);
        },
      );
    }
  }
}
