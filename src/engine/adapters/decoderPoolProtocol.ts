/**
 * The messages between a pooled decoder session (decoderPool.ts) and its worker threads
 * (decoderPoolWorker.ts). A large input (an embedding, the split decoder's precomputed projections)
 * crosses to a worker once, under a number, and is named by that number on later runs: a photo's
 * prompts all feed the same few megabytes.
 */
export interface PooledTensor {
  readonly dims: readonly number[];
  /** Absent: the worker holds this input under `held` from an earlier run. */
  readonly data?: Float32Array;
  /** Set: the worker keeps `data` under this number (or already does, when `data` is absent). */
  readonly held?: number;
}

export interface PoolInit {
  readonly model: string | Uint8Array;
  readonly threads: number;
}

export type ToPoolWorker =
  | { readonly kind: 'run'; readonly id: number; readonly feeds: Record<string, PooledTensor>; readonly fetches?: readonly string[]; readonly drop: readonly number[] }
  | { readonly kind: 'release' };

export type FromPoolWorker =
  | { readonly kind: 'ready'; readonly inputNames: readonly string[]; readonly outputNames: readonly string[] }
  | { readonly kind: 'failed'; readonly message: string }
  | { readonly kind: 'done'; readonly id: number; readonly outputs: Record<string, { readonly dims: readonly number[]; readonly data: Float32Array }> }
  | { readonly kind: 'error'; readonly id: number; readonly message: string };
