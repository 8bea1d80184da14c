/**
 * A small pool of inference worker threads with a bounded queue. The event loop never runs the
 * model; when every worker is busy and the queue is full, `tryReserve` says no and the API answers
 * 503 with Retry-After instead of queueing without bound.
 */
import { Worker } from 'node:worker_threads';
import type { EncoderIdentity } from '../../contract/embeddings';
import { workerThreadPort } from '../../engine/adapters/nodePort';
import type { NodeEngineOptions } from '../../engine/adapters/nodeEngine';
import { ENGINE_ERRORS, ENGINE_TRANSFERS, type EngineApi } from '../../engine/service/api';
import { connect } from '../../engine/service/transport';
import { DEFAULT_EMBEDDING_CACHE_SIZE } from '../../engine/engine';

/**
 * One piece of work on one worker's engine, as the pool and the fair queue see it: the EngineApi
 * calls it makes are its own (the domain writes them: domain/engineJobs.ts), the pool only picks the
 * worker, and no method of the engine is named here, so a capability added to EngineApi reaches the
 * workers without a line in the pool.
 */
export interface EngineJob<Result> {
  /**
   * The embedding the job works on: the photo's cache key, and whether it needs the mirror image's
   * too (mirror averaging). The pool sends the job to a free worker that holds it when there is one.
   */
  readonly embedding?: { readonly key: string; readonly mirrored: boolean };
  /** The job only decodes on its photo (a click): quick on a worker that holds the embedding. */
  readonly decodesOnly?: boolean;
  /** Whether the upload's file came with the job (a photo its payer had not sent before) or only its digest. */
  readonly withFile?: boolean;
  /** `holdsEmbedding`: the pool's guess that this worker's engine holds `embedding` (a guess: the engine's cache may have let it go). */
  run(engine: EngineApi, worker: { readonly holdsEmbedding: boolean }): Promise<Result>;
}

export interface InferenceSlot {
  run<Result>(job: EngineJob<Result>): Promise<Result>;
  /**
   * Gives the slot back when its job is no longer wanted: unused, or still waiting in the queue
   * (withdrawn, its `run` rejects with JobWithdrawnError). A job a worker already runs finishes,
   * and frees the slot then.
   */
  release(): void;
}

export class JobWithdrawnError extends Error {
  override name = 'JobWithdrawnError';
}

/** What the domain needs from inference; injectable (tests may run a pool of one worker). */
export interface InferenceBackend {
  /**
   * A place for one job, or undefined when none is free (503). `account` is the payer's scope:
   * the fair backend (domain/fairInference.ts) orders and bounds jobs by it; the pool ignores it.
   */
  tryReserve(account?: string): InferenceSlot | undefined;
  /** Jobs reserved now (running or queued) and how many workers run them: the domain's wait estimates. */
  backlog?(): { jobs: number; workers: number };
  readonly description: string;
  /** The encoder the workers run (once they have started): the identity served with every embedding. */
  encoderModel?(): Promise<EncoderIdentity>;
  /**
   * Whether `job` is a click on a photo the backend already holds: a point or box prompt whose
   * embedding a worker has (a decoder run there; on another free worker, that worker's encoder run
   * once, after which both hold the photo). The fair backend lets such short jobs use every free
   * worker, and keeps long ones (new photos, text prompts, segment everything) to the account's share.
   */
  isQuick?(job: EngineJob<unknown>): boolean;
  close(): Promise<void>;
}

export interface PoolOptions extends NodeEngineOptions {
  workers: number;
  /** Jobs allowed to wait beyond the ones running. */
  maxQueue: number;
  /**
   * A job taking longer fails at once (and is refunded). The worker is NOT terminated: tearing
   * down a thread inside onnxruntime's native code aborts the whole process. It finishes the late
   * job (whose answer is dropped) and then takes new work.
   */
  jobTimeoutMs: number;
}

export class InferenceTimeoutError extends Error {
  override name = 'InferenceTimeoutError';
}

interface PendingJob {
  job: EngineJob<unknown>;
  resolve(result: unknown): void;
  reject(error: Error): void;
}

interface PoolWorker {
  worker: Worker;
  /** Set once the worker has started its engine. */
  api: EngineApi | undefined;
  ready: Promise<void>;
  busy: { id: number; job: PendingJob; timer: NodeJS.Timeout } | undefined;
  /** The embeddings (cache keys) its engine made or used recently, least recent first: a guess at its cache. */
  held: Set<string>;
}

const WORKER_URL = new URL('./workerEntry.mjs', import.meta.url);

export class WorkerPool implements InferenceBackend {
  private readonly workers: PoolWorker[] = [];
  private readonly queue: PendingJob[] = [];
  private reserved = 0;
  private startError: Error | undefined;
  private nextId = 1;
  private closed = false;
  description = 'worker pool (starting)';
  private encoder: EncoderIdentity | undefined;

  constructor(private options: PoolOptions) {
    for (let i = 0; i < options.workers; i += 1) this.workers.push(this.spawn());
  }

  async encoderModel(): Promise<EncoderIdentity> {
    await this.ready();
    if (!this.encoder) throw new Error('the inference workers did not name their encoder');
    return this.encoder;
  }

  /** Changes the per-job time limit for jobs dispatched from now on. */
  setJobTimeout(ms: number): void {
    this.options.jobTimeoutMs = ms;
  }

  /** Resolves once every worker has loaded its engine; rejects if one cannot. */
  async ready(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.ready));
  }

  private get capacity(): number {
    return this.options.workers + this.options.maxQueue;
  }

  backlog(): { jobs: number; workers: number } {
    return { jobs: this.reserved, workers: this.options.workers };
  }

  tryReserve(): InferenceSlot | undefined {
    if (this.closed || this.startError || this.reserved >= this.capacity) return undefined;
    this.reserved += 1;
    let used = false;
    // Set once `run` is called: the job, queued until a worker takes it.
    let queued: PendingJob | undefined;
    const free = () => {
      if (!used) {
        used = true;
        this.reserved -= 1;
      }
    };
    return {
      run: <Result>(job: EngineJob<Result>) => {
        if (queued || used) return Promise.reject(new Error('inference slot used twice'));
        return new Promise<Result>((resolve, reject) => {
          queued = {
            job,
            resolve: (r) => {
              free();
              resolve(r as Result);
            },
            reject: (e) => {
              free();
              reject(e);
            },
          };
          this.queue.push(queued);
          this.dispatch();
        });
      },
      release: () => {
        if (!queued) return free();
        const index = this.queue.indexOf(queued);
        if (index !== -1) {
          this.queue.splice(index, 1);
          queued.reject(new JobWithdrawnError('the job was withdrawn before a worker took it'));
        }
      },
    };
  }

  private spawn(): PoolWorker {
    const worker = new Worker(WORKER_URL, { execArgv: [] });
    const { modelDir, threads, embeddingCacheSize, encoderPrecision, decoderPrecision } = this.options;
    const init: NodeEngineOptions = { modelDir, threads, embeddingCacheSize, encoderPrecision, decoderPrecision };
    const entry: PoolWorker = { worker, api: undefined, ready: Promise.resolve(), busy: undefined, held: new Set() };
    entry.ready = connect<EngineApi, NodeEngineOptions>(workerThreadPort(worker), init, { transfers: ENGINE_TRANSFERS, errors: ENGINE_ERRORS }).then(
      async ({ api }) => {
        const { backend, encoderModel } = await api.describe();
        const engine = `${backend.name} x${backend.threads}, encoder ${encoderPrecision ?? 'fp32'}, decoder ${decoderPrecision ?? 'fp32'} (split: once per image + per click)`;
        this.description = `worker pool: ${this.options.workers} × ${engine}, queue ${this.options.maxQueue}`;
        this.encoder = encoderIdentity(encoderModel);
        entry.api = api;
        this.dispatch();
      },
      (error: Error) => {
        this.startError = new Error(`inference worker failed to start: ${error.message}`);
        this.failQueued(this.startError);
        throw this.startError;
      },
    );
    entry.ready.catch(() => undefined);
    worker.on('error', (error) => {
      if (entry.api) this.replace(entry, error);
    });
    worker.on('exit', (code) => {
      if (!this.closed && entry.api) this.replace(entry, new Error(`inference worker exited with code ${code}`));
    });
    return entry;
  }

  /** A crashed worker (error or exit: the thread is gone) fails its job and is replaced. */
  private replace(entry: PoolWorker, error: Error): void {
    const index = this.workers.indexOf(entry);
    if (index === -1) return;
    if (entry.busy) {
      clearTimeout(entry.busy.timer);
      entry.busy.job.reject(error);
      entry.busy = undefined;
    }
    entry.worker.removeAllListeners('exit');
    void entry.worker.terminate();
    if (!this.closed) this.workers[index] = this.spawn();
  }

  isQuick(job: EngineJob<unknown>): boolean {
    const key = neededView(job);
    return job.decodesOnly === true && key !== undefined && this.workers.some((entry) => entry.api && entry.held.has(key));
  }

  /**
   * Hands queued jobs to free workers, each to a free worker that holds its photo's embedding when
   * there is one (each worker has its own engine cache: another worker would run the encoder again).
   */
  private dispatch(): void {
    if (this.startError) return this.failQueued(this.startError);
    while (this.queue.length > 0) {
      const free = this.workers.filter((entry) => !entry.busy && entry.api);
      if (free.length === 0) return;
      const job = this.queue.shift()!;
      const key = neededView(job.job);
      const holding = free.find((entry) => key !== undefined && entry.held.has(key));
      this.start(holding ?? free[0], job, holding !== undefined);
    }
  }

  private start(entry: PoolWorker, job: PendingJob, holdsEmbedding: boolean): void {
    const api = entry.api!;
    const id = this.nextId++;
    const timer = setTimeout(() => {
      if (entry.busy?.id !== id) return;
      // Answer the caller now; keep the worker busy with the late job until it replies.
      const late = entry.busy.job;
      entry.busy.job = { job: late.job, resolve: () => undefined, reject: () => undefined };
      late.reject(new InferenceTimeoutError(`inference took longer than ${this.options.jobTimeoutMs} ms`));
    }, this.options.jobTimeoutMs);
    entry.busy = { id, job, timer };
    const settle = (answer: (pending: PendingJob) => void) => {
      if (entry.busy?.id !== id) return;
      const { job: pending } = entry.busy;
      clearTimeout(timer);
      entry.busy = undefined;
      this.notifyIdle();
      answer(pending);
      this.dispatch();
    };
    // A job that throws synchronously fails like one that rejects.
    Promise.resolve()
      .then(() => job.job.run(api, { holdsEmbedding }))
      .then(
        (result) => {
          for (const key of madeViews(job.job)) this.remember(entry, key);
          settle((pending) => pending.resolve(result));
        },
        (error: Error) => settle((pending) => pending.reject(error)),
      );
  }

  /** Marks `key` as the worker's most recent embedding, forgetting beyond its engine's cache size. */
  private remember(entry: PoolWorker, key: string): void {
    // A photo embedded anew (it had left the cache) comes without the mirror view it may have had.
    if (!entry.held.has(key)) entry.held.delete(mirrorViewOf(key));
    entry.held.delete(key);
    entry.held.add(key);
    const size = this.options.embeddingCacheSize ?? DEFAULT_EMBEDDING_CACHE_SIZE;
    for (const old of entry.held) {
      if (entry.held.size <= size) break;
      entry.held.delete(old);
    }
  }

  private failQueued(error: Error): void {
    while (this.queue.length) this.queue.shift()!.reject(error);
  }

  private idleWaiters: (() => void)[] = [];
  private notifyIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const wake of waiters) wake();
  }

  /**
   * Stops the workers once they are out of native code: a worker still loading its model or
   * running a job is waited for (up to `graceMs`), because terminating a thread inside
   * onnxruntime aborts the process.
   */
  async close(graceMs = 60_000): Promise<void> {
    this.closed = true;
    this.failQueued(new Error('inference pool closed'));
    const deadline = Date.now() + graceMs;
    await Promise.all(
      this.workers.map(async (entry) => {
        await Promise.race([entry.ready.catch(() => undefined), sleep(Math.max(0, deadline - Date.now()))]);
        while (entry.busy && Date.now() < deadline) {
          await Promise.race([new Promise<void>((resolve) => this.idleWaiters.push(resolve)), sleep(250)]);
        }
        if (entry.busy) clearTimeout(entry.busy.timer);
        await entry.worker.terminate();
      }),
    );
  }
}

/** `file@sha256` (EngineDescription.encoderModel) as the identity served with every embedding. */
function encoderIdentity(encoderModel: string): EncoderIdentity {
  const at = encoderModel.lastIndexOf('@');
  return { file: encoderModel.slice(0, at), sha256: encoderModel.slice(at + 1), id: encoderModel };
}

const mirrorViewOf = (key: string) => `${key}+mirror`;

/** The embedding a job runs on, as the pool's affinity names it: the photo's cache key, with the mirror view for mirror averaging. */
function neededView({ embedding }: EngineJob<unknown>): string | undefined {
  if (!embedding) return undefined;
  return embedding.mirrored ? mirrorViewOf(embedding.key) : embedding.key;
}

/** The embeddings a worker holds after running `job` (every job embeds its photo; mirror averaging its mirror image too). */
function madeViews(job: EngineJob<unknown>): string[] {
  const needed = neededView(job);
  return needed === undefined ? [] : needed === job.embedding!.key ? [needed] : [job.embedding!.key, needed];
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
