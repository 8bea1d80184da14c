/**
 * A small pool of inference worker threads with a bounded queue. The event loop never runs the
 * model; when every worker is busy and the queue is full, `tryReserve` says no and the API answers
 * 503 with Retry-After instead of queueing without bound.
 */
import { Worker } from 'node:worker_threads';
import type { EncoderIdentity } from '../../contract/embeddings';
import { workerThreadPort } from '../../engine/adapters/nodePort';
import { connect } from '../../engine/service/transport';
import { DEFAULT_EMBEDDING_CACHE_SIZE } from '../../engine/engine';
import { ImageNotHeldError, INFERENCE_TRANSFERS, type InferenceJob, type InferenceMethod, type ImageJob, type InferenceWorkerApi, type QueuedJob, type ResultOf, type Timed, type WorkerInit } from './protocol';

/** The file of a job sent without it, read again when the worker does not hold its pixels. May throw. */
export type ImageLoader = () => Uint8Array;

export interface InferenceSlot {
  run<M extends InferenceMethod>(job: InferenceJob<M>, loadImage?: ImageLoader): Promise<ResultOf<M>>;
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
  isQuick?(job: QueuedJob): boolean;
  close(): Promise<void>;
}

export interface PoolOptions extends WorkerInit {
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
  job: QueuedJob;
  loadImage?: ImageLoader;
  resolve(result: Timed<unknown>): void;
  reject(error: Error): void;
}

interface PoolWorker {
  worker: Worker;
  /** Set once the worker has started its engine. */
  api: InferenceWorkerApi | undefined;
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
      run: <M extends InferenceMethod>(job: InferenceJob<M>, loadImage?: ImageLoader) => {
        if (queued || used) return Promise.reject(new Error('inference slot used twice'));
        return new Promise<ResultOf<M>>((resolve, reject) => {
          queued = {
            job,
            loadImage,
            resolve: (r) => {
              free();
              resolve(r as ResultOf<M>);
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
    const init: WorkerInit = { modelDir, threads, embeddingCacheSize, encoderPrecision, decoderPrecision };
    const entry: PoolWorker = { worker, api: undefined, ready: Promise.resolve(), busy: undefined, held: new Set() };
    entry.ready = connect<InferenceWorkerApi, WorkerInit>(workerThreadPort(worker), init, { transfers: INFERENCE_TRANSFERS, errors: { ImageNotHeldError } }).then(
      async ({ api }) => {
        const { backend, encoder } = await api.describe();
        this.description = `worker pool: ${this.options.workers} × ${backend}, queue ${this.options.maxQueue}`;
        this.encoder = encoder;
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

  isQuick(job: QueuedJob): boolean {
    const key = neededView(job);
    return job.method === 'pvs' && key !== undefined && this.workers.some((entry) => entry.api && entry.held.has(key));
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
      this.start(free.find((entry) => key !== undefined && entry.held.has(key)) ?? free[0], job);
    }
  }

  private start(entry: PoolWorker, job: PendingJob): void {
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
    runWithImage(api, job).then(
      (result) => {
        for (const key of madeViews(job.job)) this.remember(entry, key);
        settle((pending) => pending.resolve(result));
      },
      (error: Error) => settle((pending) => pending.reject(error)),
    );
  }

  /** Marks `key` as the worker's most recent embedding, forgetting beyond its engine's cache size. */
  private remember(entry: PoolWorker, key: string): void {
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

/** The embedding a job runs on, as the pool's affinity names it: the photo's cache key, with the mirror view for mirror averaging. */
function neededView({ method, request }: QueuedJob): string | undefined {
  if (request.cacheKey === undefined) return undefined;
  return method === 'pvs' && request.options?.mirrorAverage ? `${request.cacheKey}+mirror` : request.cacheKey;
}

/** The embeddings a worker holds after running `job` (every job embeds its photo; mirror averaging its mirror image too). */
function madeViews(job: QueuedJob): string[] {
  const needed = neededView(job);
  return needed === undefined ? [] : needed === job.request.cacheKey ? [needed] : [job.request.cacheKey!, needed];
}

/**
 * Runs `pending` on a worker; a job sent without its file that the worker cannot answer from the
 * pixels it holds runs again with the file, read by the job's loader.
 */
async function runWithImage(api: InferenceWorkerApi, pending: PendingJob): Promise<Timed<unknown>> {
  // The one untyped step: the slot's `run` ties each method to its request and result.
  const run = ({ method, request }: QueuedJob) => (api[method] as (job: ImageJob) => Promise<Timed<unknown>>)(request);
  try {
    return await run(pending.job);
  } catch (error) {
    if (!(error instanceof ImageNotHeldError)) throw error;
  }
  let image: Uint8Array;
  try {
    if (!pending.loadImage) throw new Error('the job came without its image and without a way to read it');
    image = pending.loadImage();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw Object.assign(new Error(`the image could not be read: ${reason}`), { name: 'ImageDecodeError' });
  }
  return run({ ...pending.job, request: { ...pending.job.request, image } });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
