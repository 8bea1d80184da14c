/**
 * The page's handle on an engine Web Worker: the EngineApi, served in the worker (engine.worker.ts).
 *
 *   const { api, description } = await startEngineWorker({ onProgress });
 *   const { imageKey } = await api.embed({ image });                             // seconds, once per image
 *   const { candidates } = await api.predict({ imageKey, prompt: { points } });  // per click
 *
 * Start-up downloads both models with byte progress (from the Cache API after the first visit),
 * then creates the sessions on the fastest working backend. If WebGPU start-up hangs, the worker is
 * replaced by a fresh one on WASM and `backend.detail` says so.
 */
import { BackendStartupTimeoutError } from '../adapters/ortWeb';
import { ENGINE_ERRORS, ENGINE_TRANSFERS, type EngineApi, type EngineDescription, type ModelProgress } from '../service/api';
import { connect } from '../service/transport';
import type { WebEngineOptions } from './webEngine';
import { webWorkerPort } from './webPort';

export interface EngineWorkerStartOptions extends Partial<Omit<WebEngineOptions, 'fallbackReason'>> {
  /** Download progress of the SAM models at start, and of each detector when a text prompt first loads it. */
  onProgress?: (p: ModelProgress) => void;
}

export interface EngineWorker {
  readonly api: EngineApi;
  readonly description: EngineDescription;
  /** Ends the worker; calls still open reject with ServiceGoneError. */
  terminate(): void;
  /** Resolves when the worker is gone: crashed, or terminated. */
  readonly gone: Promise<Error>;
}

function absolute(url: string): string {
  return new URL(url, globalThis.location?.href).href;
}

/** Starts an engine worker (defaults: models from '/models/', fp32, WebGPU → multithreaded WASM → WASM). */
export async function startEngineWorker(options: EngineWorkerStartOptions = {}): Promise<EngineWorker> {
  const { onProgress, ...rest } = options;
  const init: WebEngineOptions = {
    ...rest,
    modelBaseUrl: absolute(options.modelBaseUrl ?? '/models/'),
    ortBaseUrl: options.ortBaseUrl ? absolute(options.ortBaseUrl) : undefined,
    backend: options.backend ?? 'auto',
    decoderPrecision: options.decoderPrecision ?? 'fp32',
    encoderPrecision: options.encoderPrecision ?? 'fp32',
  };
  try {
    return await startOnce(init, onProgress);
  } catch (error) {
    if (!(error instanceof BackendStartupTimeoutError)) throw error;
    // A hung GPU backend cannot be unwound inside its worker: start over on WASM in a fresh one.
    return startOnce({ ...init, backend: 'wasm', fallbackReason: `WebGPU start-up failed: ${error.message}` }, onProgress);
  }
}

async function startOnce(init: WebEngineOptions, onProgress?: (p: ModelProgress) => void): Promise<EngineWorker> {
  const worker = new Worker(new URL('./engine.worker.ts', import.meta.url), { type: 'module', name: 'maskwright-engine' });
  const { api, close, gone } = await connect<EngineApi, WebEngineOptions, ModelProgress>(webWorkerPort(worker), init, {
    transfers: ENGINE_TRANSFERS,
    errors: { ...ENGINE_ERRORS, BackendStartupTimeoutError },
    onEvent: onProgress,
  });
  return { api, description: await api.describe(), terminate: close, gone };
}
