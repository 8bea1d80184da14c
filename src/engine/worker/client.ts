/**
 * Main-thread handle on the engine worker. The page never touches onnxruntime itself:
 *
 *   const engine = await EngineWorkerClient.start({ onProgress });
 *   const { imageKey } = await engine.embed(imageData);          // seconds, once per image
 *   const { candidates } = await engine.predict(imageKey, { points: [{ x, y }] });   // per click
 *   const { results } = await engine.segmentText(image, ['cat'], { imageId: imageKey }); // text prompts
 *   const { instances } = await engine.findSimilar(imageKey, acceptedMask);             // more like this
 *
 * Start-up downloads both models with byte progress (from the Cache API after the first visit),
 * then creates the sessions on the fastest working backend. If WebGPU start-up hangs, the worker is
 * replaced by a fresh one on WASM and `backend.detail` says so.
 */
import type { WebBackendPreference } from '../adapters/ortWeb';
import type { OutlineOptions, SegmentationOptions } from '../options';
import type { BackendInfo } from '../runtime';
import type { DetectionPasses } from '../text/passes';
import type { BinaryMask, RgbaImage, VisualPrompt } from '../types';
import type {
  DecoderPrecision,
  EncoderPrecision,
  EmbeddingRecord,
  EmbedResponse,
  FindSimilarResponse,
  SegmentTextResponse,
  ModelProgress,
  ModelSource,
  PredictResponse,
  RetraceResponse,
  SerializedError,
  StartRequest,
  StartTimings,
  WorkerMessage,
  WorkerRequest,
} from './protocol';

export type {
  DecoderPrecision,
  EncoderPrecision,
  EmbeddingRecord,
  ModelProgress,
  ModelSource,
  StartTimings,
  PolygonCandidate,
  EmbedResponse,
  PredictResponse,
  PredictTimings,
  RetraceResponse,
  EmbedTimings,
  SegmentTextResponse,
  TextPromptResult,
  TextInstanceResult,
  FindSimilarResponse,
  SimilarInstanceResult,
} from './protocol';

export interface EngineWorkerStartOptions {
  /** Where sam-encoder.onnx, sam-decoder.onnx and manifest.json are served. Default '/models/'. */
  modelBaseUrl?: string;
  /** Download progress of the SAM models at start, and of the detector when the first text prompt loads it. */
  onProgress?: (p: ModelProgress) => void;
  /** Where onnxruntime-web's .mjs/.wasm files are served. Default '/ort/'. */
  ortBaseUrl?: string;
  /** Default 'auto' (WebGPU → multithreaded WASM → single-threaded WASM). */
  backend?: WebBackendPreference;
  embeddingCacheSize?: number;
  /** Time limit for WebGPU start-up before falling back to WASM. Default 20 s. */
  webGpuStartupTimeoutMs?: number;
  /** Accept a software WebGPU adapter (SwiftShader); off by default, see ortWeb.ts. */
  allowFallbackAdapter?: boolean;
  /** Default 'fp32' (reference masks); 'int8' trades a little fidelity for a faster decoder. */
  decoderPrecision?: DecoderPrecision;
  /** Default 'fp32'; 'int8' is the faster encoder variant (scripts/onnxQuantize.mjs). */
  encoderPrecision?: EncoderPrecision;
  /** Only these text-prompt detectors, by name ('centernet', 'coco-ssd', 'blazeface'); default all (a benchmark compares subsets). */
  textDetectors?: readonly string[];
  /** At most this many WASM threads (default: up to 4, as many as the cores). */
  maxThreads?: number;
  /** The detectors' looks at the photo (text/passes.ts); default the service's (a benchmark compares). */
  textPasses?: DetectionPasses;
  /** Default true: the split decoder where the deployment has it; false: the single decoder file (the bench's reference). */
  splitDecoder?: boolean;
  /** Default true; false for a worker that only embeds (the studio's mirror worker): it never decodes a click. */
  warmUpDecoder?: boolean;
}

export class EngineWorkerError extends Error {
  constructor(serialized: SerializedError) {
    super(serialized.message);
    this.name = serialized.name;
  }
}

type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void; onMask?: (mask: BinaryMask) => void };
type RequestBody = WorkerRequest extends infer R ? (R extends WorkerRequest ? Omit<R, 'id'> : never) : never;

function spawnWorker(): Worker {
  return new Worker(new URL('./engine.worker.ts', import.meta.url), { type: 'module', name: 'maskwright-engine' });
}

function absolute(url: string): string {
  return new URL(url, globalThis.location?.href).href;
}

export class EngineWorkerClient {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private terminated = false;

  private constructor(
    private readonly worker: Worker,
    readonly backend: BackendInfo,
    /** Model download (or cache read) and session creation times of the successful start. */
    readonly startTimings: StartTimings,
    /** 'cache' when both models came from the Cache API (no network needed). */
    readonly modelSource: ModelSource,
    /** `file@sha256` of the loaded encoder: the identity stored with exported embeddings. */
    readonly encoderModel: string,
    onProgress?: (p: ModelProgress) => void,
  ) {
    worker.onmessage = (event: MessageEvent<WorkerMessage>) => {
      const message = event.data;
      if (message.type === 'progress') onProgress?.(message.progress);
      if (message.type === 'mask') this.pending.get(message.id)?.onMask?.(message.mask);
      if (message.type !== 'result') return;
      const waiter = this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id);
      if (message.ok) waiter.resolve(message.value);
      else waiter.reject(new EngineWorkerError(message.error));
    };
    worker.onerror = (event: ErrorEvent) => {
      this.failAll(new Error(`engine worker crashed: ${event.message || 'unknown error'}`));
    };
  }

  static async start(options: EngineWorkerStartOptions = {}): Promise<EngineWorkerClient> {
    const request: StartRequest = {
      type: 'start',
      modelBaseUrl: absolute(options.modelBaseUrl ?? '/models/'),
      ortBaseUrl: options.ortBaseUrl ? absolute(options.ortBaseUrl) : undefined,
      backend: options.backend ?? 'auto',
      embeddingCacheSize: options.embeddingCacheSize,
      webGpuStartupTimeoutMs: options.webGpuStartupTimeoutMs,
      decoderPrecision: options.decoderPrecision ?? 'fp32',
      encoderPrecision: options.encoderPrecision ?? 'fp32',
      splitDecoder: options.splitDecoder,
      allowFallbackAdapter: options.allowFallbackAdapter,
      textDetectors: options.textDetectors,
      maxThreads: options.maxThreads,
      textPasses: options.textPasses,
      warmUpDecoder: options.warmUpDecoder,
    };
    try {
      return await EngineWorkerClient.startOnce(request, options.onProgress);
    } catch (error) {
      if (!(error instanceof BackendStartTimeout)) throw error;
      // A hung GPU backend cannot be unwound inside its worker: start over on WASM in a fresh one.
      return EngineWorkerClient.startOnce(
        { ...request, backend: 'wasm', fallbackReason: `WebGPU start-up failed: ${error.message}` },
        options.onProgress,
      );
    }
  }

  private static startOnce(request: StartRequest, onProgress?: (p: ModelProgress) => void): Promise<EngineWorkerClient> {
    const worker = spawnWorker();
    return new Promise<EngineWorkerClient>((resolve, reject) => {
      worker.onmessage = (event: MessageEvent<WorkerMessage>) => {
        const message = event.data;
        if (message.type === 'progress') onProgress?.(message.progress);
        else if (message.type === 'ready') resolve(new EngineWorkerClient(worker, message.backend, message.timings, message.modelSource, message.encoderModel, onProgress));
        else if (message.type === 'start-failed') {
          worker.terminate();
          reject(message.backendTimedOut ? new BackendStartTimeout(message.error.message) : new EngineWorkerError(message.error));
        }
      };
      worker.onerror = (event: ErrorEvent) => {
        worker.terminate();
        reject(new Error(`engine worker failed to start: ${event.message || 'script error (is the worker bundle served?)'}`));
      };
      worker.postMessage(request);
    });
  }

  /**
   * Computes (or finds cached) the image embedding. The pixels are copied to the worker, so the
   * caller's buffer stays usable; pass `{ transfer: true }` to hand the buffer over instead (it is
   * detached here afterwards). `mirrored`: the mirror image's embedding too (for `mirrorAverage`).
   */
  embed(image: RgbaImage, imageId?: string, options: { transfer?: boolean; mirrored?: boolean } = {}): Promise<EmbedResponse> {
    const plain: RgbaImage = { width: image.width, height: image.height, data: image.data };
    const transfer = options.transfer && image.data.buffer instanceof ArrayBuffer ? [image.data.buffer] : [];
    return this.request<EmbedResponse>({ type: 'embed', image: plain, imageId, mirrored: options.mirrored }, transfer);
  }

  /**
   * Candidates best first, each with polygons in image pixels traced at `options.tolerance`; buffers
   * arrive transferred, not copied. Options left out take DEFAULT_SEGMENTATION_OPTIONS. `onMask` gets
   * the best candidate's mask as soon as the decoder has answered, before the polygons are traced.
   */
  predict(imageKey: string, prompt: VisualPrompt, options: Partial<SegmentationOptions> = {}, onMask?: (mask: BinaryMask) => void): Promise<PredictResponse> {
    return this.request<PredictResponse>({ type: 'predict', imageKey, prompt, options, earlyMask: onMask !== undefined }, [], onMask);
  }

  /**
   * The outlines of `masks` at another tolerance (the Detail slider moved), in the worker. The masks
   * are copied, so the page keeps using them meanwhile; answered ahead of queued decodes.
   */
  retrace(masks: readonly BinaryMask[], outline: Partial<OutlineOptions>): Promise<RetraceResponse> {
    const plain = masks.map((mask) => ({ width: mask.width, height: mask.height, data: mask.data }));
    return this.request<RetraceResponse>({ type: 'retrace', masks: plain, outline });
  }

  /**
   * Text prompts on the image: per prompt, whether the local detector knows it and the instances
   * found (label, confidence, polygons, mask). Pass the same `imageId` as to `embed` to reuse its
   * embedding. The first prompt naming a known concept downloads the detector (progress via
   * `onProgress` with model 'detector'). The pixels are copied; the caller's buffer stays usable.
   */
  segmentText(image: RgbaImage, prompts: readonly string[], options: { imageId?: string; outline?: Partial<OutlineOptions> } = {}): Promise<SegmentTextResponse> {
    const plain: RgbaImage = { width: image.width, height: image.height, data: image.data };
    return this.request<SegmentTextResponse>({ type: 'segmentText', image: plain, imageId: options.imageId, prompts: [...prompts], outline: options.outline });
  }

  /** Other instances like the object `mask` covers, from the embedding of `imageKey` (embed first). */
  findSimilar(imageKey: string, mask: BinaryMask, options: { outline?: Partial<OutlineOptions> } = {}): Promise<FindSimilarResponse> {
    return this.request<FindSimilarResponse>({ type: 'findSimilar', imageKey, mask: { width: mask.width, height: mask.height, data: mask.data }, outline: options.outline });
  }

  /** A copy of the embedding of `imageKey` with the encoder's identity, or null if none is cached. */
  exportEmbedding(imageKey: string): Promise<EmbeddingRecord | null> {
    return this.request<EmbeddingRecord | null>({ type: 'exportEmbedding', imageKey });
  }

  /**
   * Gives the worker an embedding made earlier (IndexedDB, the server) for `image` under `imageId`:
   * its clicks then decode without an encoder run. Rejected when `record.model` is another encoder.
   */
  importEmbedding(image: RgbaImage, imageId: string, record: EmbeddingRecord): Promise<void> {
    const plain: RgbaImage = { width: image.width, height: image.height, data: image.data };
    return this.request<void>({ type: 'importEmbedding', image: plain, imageId, record });
  }

  /** The mirror image's embedding (made by another worker) for the photo cached under `imageKey`. */
  importMirrorEmbedding(imageKey: string, record: EmbeddingRecord): Promise<void> {
    return this.request<void>({ type: 'importMirrorEmbedding', imageKey, record }, record.data.buffer instanceof ArrayBuffer ? [record.data.buffer] : []);
  }

  hasEmbedding(imageKey: string): Promise<boolean> {
    return this.request<boolean>({ type: 'hasEmbedding', imageKey });
  }

  /** Drops one cached embedding (or all of them). */
  forget(imageKey?: string): Promise<void> {
    return this.request<void>({ type: 'forget', imageKey });
  }

  terminate(): void {
    if (this.terminated) return;
    this.terminated = true;
    this.worker.terminate();
    this.failAll(new Error('the engine worker was terminated'));
  }

  private request<T>(body: RequestBody, transfer: Transferable[] = [], onMask?: (mask: BinaryMask) => void): Promise<T> {
    if (this.terminated) return Promise.reject(new Error('the engine worker was terminated'));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject, onMask });
      this.worker.postMessage({ ...body, id } as WorkerRequest, transfer);
    });
  }

  private failAll(error: Error): void {
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
  }
}

class BackendStartTimeout extends Error {
  override name = 'BackendStartTimeout';
}
