/**
 * The browser side of the runtime seam: onnxruntime-web, meant to run inside a Web Worker
 * (src/engine/worker/engine.worker.ts) so inference never blocks the page.
 *
 * Backend choice, fastest first, and the reason a faster one was skipped goes into `backend.detail`:
 *   1. WebGPU, when `navigator.gpu.requestAdapter()` yields a real (non-fallback) adapter. Software
 *      adapters (SwiftShader) are refused: ORT sessions on them were seen hanging for minutes.
 *   2. Multithreaded WASM, when the page is cross-origin isolated (SharedArrayBuffer available).
 *   3. Single-threaded WASM otherwise.
 *
 * Any WebGPU session error falls back to WASM in place. A WebGPU start-up that *hangs* cannot be
 * recovered inside the same wasm instance, so it rejects with `BackendStartupTimeoutError` and the
 * worker client restarts a fresh worker with `backend: 'wasm'`. Sessions on a SwiftShader adapter
 * were created fine but then hung in their first run, so the worker also times a warm-up inference.
 *
 * ORT's loader (.mjs) and binary (.wasm) are loaded from our own `/ort/` (public/ort, placed by
 * `npm run models`) rather than from the bundle: the loader then spawns its pthread workers from its
 * own clean URL, never from an app chunk that a bundler may have merged other code into.
 */
import type * as OrtNamespace from 'onnxruntime-web';
import type { BackendInfo, ModelName, ModelSession, Runtime, Tensor } from '../runtime';

type Ort = typeof OrtNamespace;

export type WebBackendPreference = 'auto' | 'webgpu' | 'wasm' | 'wasm-single-threaded';

export interface WebRuntimeOptions {
  /** Where ORT's .mjs/.wasm files are served. Default: `/ort/` on the current origin. */
  ortBaseUrl?: string;
  /** 'auto' picks the fastest available; 'wasm' skips WebGPU; 'wasm-single-threaded' forces one thread. */
  backend?: WebBackendPreference;
  /** Upper bound on WASM threads (default 4; fewer when the machine has fewer cores). */
  maxThreads?: number;
  /** Time limit for WebGPU adapter probing and for each WebGPU session start-up. Default 20 s. */
  webGpuStartupTimeoutMs?: number;
  /** Why the caller already ruled out a faster backend (e.g. a previous WebGPU timeout); kept in `detail`. */
  fallbackReason?: string;
  /**
   * Accept a software WebGPU adapter (SwiftShader). Off by default: ORT sessions on it were seen
   * hanging; tests turn it on to exercise the start-up time limit and the fallback to WASM.
   */
  allowFallbackAdapter?: boolean;
}

export class BackendStartupTimeoutError extends Error {
  constructor(what: string, ms: number) {
    super(`${what} did not finish within ${ms} ms`);
    this.name = 'BackendStartupTimeoutError';
  }
}

/** Minimal structural view of WebGPU, so this file compiles without @webgpu/types. */
interface GpuAdapterLike {
  readonly isFallbackAdapter?: boolean;
  readonly info?: { isFallbackAdapter?: boolean; vendor?: string; architecture?: string; description?: string };
}
interface GpuLike {
  requestAdapter(options?: { powerPreference?: 'high-performance' | 'low-power' }): Promise<GpuAdapterLike | null>;
}

interface GlobalLike {
  crossOriginIsolated?: boolean;
  location?: { href: string };
  navigator?: { gpu?: GpuLike; hardwareConcurrency?: number };
}

export const DEFAULT_WEBGPU_TIMEOUT_MS = 20_000;

export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BackendStartupTimeoutError(what, ms)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export type WebGpuProbe = { usable: true; adapter: GpuAdapterLike; description: string } | { usable: false; reason: string };

/** Is there a hardware WebGPU adapter? Never throws. */
export async function probeWebGpu(
  scope: GlobalLike = globalThis as GlobalLike,
  timeoutMs = DEFAULT_WEBGPU_TIMEOUT_MS,
  allowFallbackAdapter = false,
): Promise<WebGpuProbe> {
  const gpu = scope.navigator?.gpu;
  if (!gpu) return { usable: false, reason: 'WebGPU is not exposed by this browser' };
  let adapter: GpuAdapterLike | null;
  try {
    adapter = await withTimeout(gpu.requestAdapter({ powerPreference: 'high-performance' }), timeoutMs, 'navigator.gpu.requestAdapter()');
  } catch (error) {
    return { usable: false, reason: `WebGPU adapter request failed: ${errorMessage(error)}` };
  }
  if (!adapter) return { usable: false, reason: 'no WebGPU adapter (navigator.gpu.requestAdapter() returned null)' };
  const info = adapter.info;
  const description = [info?.vendor, info?.architecture, info?.description].filter(Boolean).join(' ') || 'unknown adapter';
  if ((adapter.isFallbackAdapter || info?.isFallbackAdapter) && !allowFallbackAdapter) {
    return { usable: false, reason: `WebGPU adapter is a software fallback (${description})` };
  }
  return { usable: true, adapter, description };
}

/** Threads for multithreaded WASM: at most `maxThreads`, never more than the cores reported. */
export function wasmThreadCount(hardwareConcurrency: number | undefined, maxThreads = 4): number {
  const cores = hardwareConcurrency && hardwareConcurrency > 0 ? hardwareConcurrency : 1;
  return Math.max(1, Math.min(maxThreads, cores));
}

function defaultOrtBaseUrl(scope: GlobalLike): string {
  // Absolute on purpose: the Vite dev server rewrites root-relative dynamic imports, not absolute ones.
  const base = scope.location?.href ?? 'http://localhost/';
  return new URL('/ort/', base).href;
}

function toOrtTensor(ort: Ort, tensor: Tensor): OrtNamespace.Tensor {
  return new ort.Tensor('float32', tensor.data, tensor.dims as number[]);
}

function fromOrtTensor(name: string, value: OrtNamespace.Tensor): Tensor {
  if (value.type !== 'float32') throw new Error(`output ${name} has type ${value.type}; the engine expects float32`);
  return { data: value.data as Float32Array, dims: [...value.dims] };
}

class OrtWebSession implements ModelSession {
  constructor(
    private readonly ort: Ort,
    private readonly session: OrtNamespace.InferenceSession,
  ) {}

  get inputNames(): readonly string[] {
    return this.session.inputNames;
  }

  get outputNames(): readonly string[] {
    return this.session.outputNames;
  }

  async run(feeds: Record<string, Tensor>, fetches?: readonly string[]): Promise<Record<string, Tensor>> {
    const ortFeeds: Record<string, OrtNamespace.Tensor> = {};
    for (const [name, tensor] of Object.entries(feeds)) ortFeeds[name] = toOrtTensor(this.ort, tensor);
    const results = fetches ? await this.session.run(ortFeeds, fetches as string[]) : await this.session.run(ortFeeds);
    const out: Record<string, Tensor> = {};
    for (const [name, value] of Object.entries(results)) out[name] = fromOrtTensor(name, value);
    return out;
  }

  release(): Promise<void> {
    return this.session.release();
  }
}

interface Plan {
  backend: BackendInfo;
  /** Which ORT build to load: the JSEP build for WebGPU, the smaller plain build for WASM. */
  loadOrt: () => Promise<Ort>;
  executionProviders: OrtNamespace.InferenceSession.ExecutionProviderConfig[];
}

function wasmPlan(scope: GlobalLike, options: WebRuntimeOptions, why: string[]): Plan {
  const isolated = scope.crossOriginIsolated === true;
  const forcedSingle = options.backend === 'wasm-single-threaded';
  const threads = isolated && !forcedSingle ? wasmThreadCount(scope.navigator?.hardwareConcurrency, options.maxThreads) : 1;
  if (!isolated) why.push('not cross-origin isolated (COOP/COEP headers missing), so no SharedArrayBuffer for threads');
  else if (forcedSingle) why.push('single-threaded WASM was requested');
  else if (threads === 1) why.push('only one core reported');
  const name = threads > 1 ? 'wasm-multithreaded' : 'wasm-single-threaded';
  return {
    backend: { name, threads, detail: why.join('; ') || undefined },
    loadOrt: () => import('onnxruntime-web/wasm') as Promise<Ort>,
    executionProviders: ['wasm'],
  };
}

/**
 * Creates the browser runtime. Decides the backend up front (adapter probe, isolation), loads the
 * matching ORT build, and reports in `backend` what actually runs.
 */
export async function createWebRuntime(options: WebRuntimeOptions = {}, scope: GlobalLike = globalThis as GlobalLike): Promise<Runtime> {
  const preference = options.backend ?? 'auto';
  const timeoutMs = options.webGpuStartupTimeoutMs ?? DEFAULT_WEBGPU_TIMEOUT_MS;
  const why: string[] = options.fallbackReason ? [options.fallbackReason] : [];

  let plan: Plan;
  if (preference === 'auto' || preference === 'webgpu') {
    const probe = await probeWebGpu(scope, timeoutMs, options.allowFallbackAdapter);
    if (probe.usable) {
      plan = {
        backend: { name: 'webgpu', threads: 1, detail: `WebGPU adapter: ${probe.description}` },
        loadOrt: () => import('onnxruntime-web') as Promise<Ort>,
        executionProviders: ['webgpu'],
      };
    } else {
      why.push(probe.reason);
      plan = wasmPlan(scope, options, why);
    }
  } else {
    if (preference === 'wasm' && !options.fallbackReason) why.push('WASM was requested');
    plan = wasmPlan(scope, options, why);
  }

  const ort = await plan.loadOrt();
  ort.env.wasm.wasmPaths = options.ortBaseUrl ?? defaultOrtBaseUrl(scope);
  // Threads also serve CPU-side kernels under WebGPU; must be set before the first session.
  const isolated = scope.crossOriginIsolated === true;
  ort.env.wasm.numThreads =
    plan.backend.name === 'wasm-single-threaded' || !isolated ? 1 : wasmThreadCount(scope.navigator?.hardwareConcurrency, options.maxThreads);
  ort.env.wasm.proxy = false; // we already are in a worker
  ort.env.logLevel = 'error';
  return new OrtWebRuntime(ort, plan, timeoutMs);
}

class OrtWebRuntime implements Runtime {
  private plan: Plan;

  constructor(
    private readonly ort: Ort,
    plan: Plan,
    private readonly timeoutMs: number,
  ) {
    this.plan = plan;
  }

  get backend(): BackendInfo {
    return this.plan.backend;
  }

  async createSession(name: ModelName, model: string | Uint8Array): Promise<ModelSession> {
    const options = (executionProviders: Plan['executionProviders']): OrtNamespace.InferenceSession.SessionOptions => ({
      executionProviders,
      graphOptimizationLevel: 'all',
    });
    const create = (executionProviders: Plan['executionProviders']) =>
      typeof model === 'string'
        ? this.ort.InferenceSession.create(model, options(executionProviders))
        : this.ort.InferenceSession.create(model, options(executionProviders));

    if (this.plan.backend.name !== 'webgpu') {
      return new OrtWebSession(this.ort, await create(this.plan.executionProviders));
    }
    try {
      return new OrtWebSession(this.ort, await withTimeout(create(['webgpu']), this.timeoutMs, `WebGPU session start-up (${name})`));
    } catch (error) {
      if (error instanceof BackendStartupTimeoutError) throw error;
      // The JSEP build also runs plain WASM: fall back in place and say why.
      const isolated = this.ort.env.wasm.numThreads !== undefined && this.ort.env.wasm.numThreads > 1;
      const threads = isolated ? (this.ort.env.wasm.numThreads as number) : 1;
      this.plan = {
        ...this.plan,
        backend: {
          name: threads > 1 ? 'wasm-multithreaded' : 'wasm-single-threaded',
          threads,
          detail: `WebGPU session for the ${name} failed (${errorMessage(error)})`,
        },
        executionProviders: ['wasm'],
      };
      return new OrtWebSession(this.ort, await create(['wasm']));
    }
  }
}
