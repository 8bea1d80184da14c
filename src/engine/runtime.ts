/**
 * The one seam between the segmentation core and an inference runtime.
 *
 * The core (everything in src/engine outside `adapters/`) never imports onnxruntime,
 * the DOM or Node: it speaks only these interfaces. `adapters/ortNode.ts` (server, CLI,
 * eval, bench) and `adapters/ortWeb.ts` (browser, inside a Web Worker) implement them.
 */

/** A dense float32 tensor, row-major. */
export interface Tensor {
  readonly data: Float32Array;
  readonly dims: readonly number[];
}

import type { ModelName } from './catalog';
export type { ModelName };

export interface ModelSession {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  /** Runs the graph; `fetches` limits which outputs are computed/returned. */
  run(feeds: Record<string, Tensor>, fetches?: readonly string[]): Promise<Record<string, Tensor>>;
  release(): Promise<void>;
  /** Runs that make progress side by side when started before the first is awaited (absent: 1). */
  readonly concurrency?: number;
}

/** Which execution backend is actually running, reported to users and benchmarks. */
export type BackendName = 'onnxruntime-node-cpu' | 'webgpu' | 'wasm-multithreaded' | 'wasm-single-threaded';

export interface BackendInfo {
  readonly name: BackendName;
  readonly threads: number;
  /** Free-form detail, e.g. why a faster backend was not used. */
  readonly detail?: string;
}

export interface Runtime {
  readonly backend: BackendInfo;
  /** `model` is the adapter-specific source: a file path in Node, bytes or a URL in the browser. */
  createSession(name: ModelName, model: string | Uint8Array): Promise<ModelSession>;
}
