/**
 * A decoder session that runs on several worker threads at once, each with its own onnxruntime-node
 * session of one intra-op thread. onnxruntime-node runs a session on the main thread, one run at a
 * time; a prompt decoder's run is many small operators, which two intra-op threads share poorly (and
 * spin on while other work waits for the cores). Two runs side by side, one thread each, keep both
 * cores on useful work. Only a caller that starts several runs before awaiting them gains: segment
 * everything's bulk rule, with `concurrency` as its look-ahead. Node-only.
 */
import { Worker } from 'node:worker_threads';
import type { ModelSession, Tensor } from '../runtime';
import type { FromPoolWorker, PooledTensor, ToPoolWorker } from './decoderPoolProtocol';

const WORKER_URL = new URL('./decoderPoolWorkerEntry.mjs', import.meta.url);

/** Inputs at least this large (elements) cross to a worker once and are named afterwards. */
const HELD_INPUT_MIN_ELEMENTS = 1 << 17;
/** Large inputs a worker keeps: a photo's and a tile's embedding with their precomputed projections. */
const HELD_INPUTS_PER_WORKER = 8;

interface PoolWorker {
  readonly worker: Worker;
  /** Numbers of the large inputs it holds, oldest first. */
  readonly held: number[];
  inFlight: number;
}

interface Pending {
  resolve(outputs: Record<string, Tensor>): void;
  reject(error: Error): void;
}

export interface PooledSession extends ModelSession {
  /** Runs that can be in progress at once. */
  readonly concurrency: number;
}

export async function createPooledSession(model: string | Uint8Array, workers: number): Promise<PooledSession> {
  const heldNumbers = new WeakMap<Float32Array, number>();
  let nextHeld = 0;
  let nextRun = 0;
  const pending = new Map<number, Pending>();
  const pool: PoolWorker[] = [];
  let names: { inputNames: readonly string[]; outputNames: readonly string[] } | undefined;

  const started = Array.from({ length: workers }, async () => {
    const worker = new Worker(WORKER_URL, { execArgv: [], workerData: { model, threads: 1 } });
    const entry: PoolWorker = { worker, held: [], inFlight: 0 };
    await new Promise<void>((resolve, reject) => {
      worker.once('error', reject);
      worker.once('message', (message: FromPoolWorker) => {
        if (message.kind === 'ready') {
          names = { inputNames: message.inputNames, outputNames: message.outputNames };
          resolve();
        } else reject(new Error(`decoder worker failed to load the model: ${message.kind === 'failed' ? message.message : message.kind}`));
      });
    });
    worker.on('message', (message: FromPoolWorker) => {
      if (message.kind !== 'done' && message.kind !== 'error') return;
      const waiting = pending.get(message.id);
      pending.delete(message.id);
      entry.inFlight--;
      if (message.kind === 'done') waiting?.resolve(message.outputs);
      else waiting?.reject(new Error(message.message));
    });
    worker.on('error', (error) => {
      for (const [id, waiting] of pending) {
        pending.delete(id);
        waiting.reject(error);
      }
    });
    pool.push(entry);
  });
  await Promise.all(started);

  const heldNumberOf = (data: Float32Array): number => {
    let number = heldNumbers.get(data);
    if (number === undefined) heldNumbers.set(data, (number = nextHeld++));
    return number;
  };
  // The least busy worker; among those, the one already holding most of this run's large inputs.
  const chooseWorker = (large: readonly number[]): PoolWorker =>
    pool.reduce((best, entry) => {
      if (entry.inFlight !== best.inFlight) return entry.inFlight < best.inFlight ? entry : best;
      const holds = (w: PoolWorker) => large.filter((n) => w.held.includes(n)).length;
      return holds(entry) > holds(best) ? entry : best;
    });

  return {
    concurrency: workers,
    get inputNames() {
      return names!.inputNames;
    },
    get outputNames() {
      return names!.outputNames;
    },
    run(feeds: Record<string, Tensor>, fetches?: readonly string[]): Promise<Record<string, Tensor>> {
      const large = Object.values(feeds)
        .filter((t) => t.data.length >= HELD_INPUT_MIN_ELEMENTS)
        .map((t) => heldNumberOf(t.data));
      const entry = chooseWorker(large);
      const sent: Record<string, PooledTensor> = {};
      for (const [name, tensor] of Object.entries(feeds)) {
        if (tensor.data.length < HELD_INPUT_MIN_ELEMENTS) {
          sent[name] = { dims: tensor.dims, data: tensor.data };
          continue;
        }
        const held = heldNumberOf(tensor.data);
        const known = entry.held.includes(held);
        if (!known) entry.held.push(held);
        // Structured clone copies `data`: the caller keeps its embedding.
        sent[name] = known ? { dims: tensor.dims, held } : { dims: tensor.dims, held, data: tensor.data };
      }
      const keep = new Set(large);
      const drop: number[] = [];
      while (entry.held.length > HELD_INPUTS_PER_WORKER) {
        const oldest = entry.held.findIndex((n) => !keep.has(n));
        if (oldest < 0) break;
        drop.push(...entry.held.splice(oldest, 1));
      }
      const id = nextRun++;
      entry.inFlight++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        const message: ToPoolWorker = { kind: 'run', id, feeds: sent, ...(fetches ? { fetches } : {}), drop };
        entry.worker.postMessage(message);
      });
    },
    async release(): Promise<void> {
      await Promise.all(
        pool.map(async ({ worker }) => {
          const exited = new Promise((resolve) => worker.once('exit', resolve));
          worker.postMessage({ kind: 'release' } satisfies ToPoolWorker);
          await exited;
        }),
      );
    },
  };
}
