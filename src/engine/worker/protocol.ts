/**
 * Messages between the page (client.ts) and the engine worker (engine.worker.ts).
 * Plain structured-cloneable data; large buffers travel in the transfer list, never copied.
 */
import type { OutlineOptions, SegmentationOptions } from '../options';
import type { BackendInfo } from '../runtime';
import type { BinaryMask, PolygonWithHoles, RgbaImage, VisualPrompt } from '../types';
import type { WebBackendPreference } from '../adapters/ortWeb';
import type { DetectionPasses } from '../text/passes';

export interface ModelProgress {
  /** 'detector' arrives after start, when the first text prompt loads it. */
  model: 'encoder' | 'decoder' | 'detector' | 'detector-coco-ssd' | 'detector-face' | 'detector-open-images';
  loadedBytes: number;
  totalBytes: number;
}

/** Where the model bytes came from on this start: 'cache' means the Cache API (works offline). */
export type ModelSource = 'network' | 'cache' | 'mixed';

export interface StartTimings {
  /** Manifest + both models, from the network or the Cache API. */
  downloadMs: number;
  /** ORT initialisation and session creation. */
  sessionMs: number;
}

export interface StartRequest {
  type: 'start';
  modelBaseUrl: string;
  ortBaseUrl?: string;
  backend: WebBackendPreference;
  fallbackReason?: string;
  embeddingCacheSize?: number;
  webGpuStartupTimeoutMs?: number;
  allowFallbackAdapter?: boolean;
  decoderPrecision: DecoderPrecision;
  /** Default 'fp32' when absent (older callers). */
  encoderPrecision?: EncoderPrecision;
  /** The text-prompt detectors the worker may use, by name (ConceptDetector.name); absent: all. */
  textDetectors?: readonly string[];
  /** The detectors' looks at the photo (text/passes.ts); absent: the service's default (a benchmark compares). */
  textPasses?: DetectionPasses;
  /** Default true: the decoder split into its per-image and per-click models, when the manifest lists them. */
  splitDecoder?: boolean;
  /** At most this many WASM threads (a background worker takes one, leaving the other cores to clicks). */
  maxThreads?: number;
  /** Default true: run the decoder a few times at start so the first click is fast; false for a worker that only embeds. */
  warmUpDecoder?: boolean;
}

/**
 * 'fp32' is the reference decoder. 'int8' quantizes its image-side projections: about twice as fast
 * on those layers in WASM, masks very close to fp32 but not identical (see scripts/onnxQuantize.mjs).
 */
export type DecoderPrecision = 'fp32' | 'int8';

/**
 * 'fp32' is the reference encoder. 'int8' quantizes every weight MatMul and uses the tanh GELU: faster,
 * embeddings close to fp32; `npm run eval` measures the effect on masks (docs/RESULTS.md).
 */
export type EncoderPrecision = 'fp32' | 'int8';

export interface EmbedTimings {
  preprocessMs: number;
  encoderMs: number;
}

export interface EmbedResponse {
  imageKey: string;
  cacheHit: boolean;
  timings: EmbedTimings;
}

/**
 * An image embedding outside the engine (stored in IndexedDB, later served by the API) with the
 * identity of the encoder that made it: an embedding is only meaningful to the decoder of that model.
 */
export interface EmbeddingRecord {
  /** `file@sha256` of the encoder (public/models/manifest.json). */
  model: string;
  dims: number[];
  data: Float32Array;
}

export interface PolygonCandidate {
  polygons: PolygonWithHoles[];
  score: number;
  area: number;
  /** 256×256 logits over the padded 1024 frame; feed back as `VisualPrompt.maskInput`. */
  lowResLogits: Float32Array;
  mask: BinaryMask;
}

export interface PredictTimings {
  decoderMs: number;
  postprocessMs: number;
  polygonMs: number;
}

export interface PredictResponse {
  candidates: PolygonCandidate[];
  timings: PredictTimings;
}

/** The outlines of masks the page holds, traced again (the Detail slider moved): `polygons[i]` is `masks[i]`'s. */
export interface RetraceResponse {
  polygons: PolygonWithHoles[][];
  timings: { polygonMs: number };
}

/** One detected instance of a text prompt, outlined by SAM. */
export interface TextInstanceResult {
  label: string;
  /** detector score × SAM's predicted IoU (see src/engine/text/pipeline.ts). */
  confidence: number;
  area: number;
  polygons: PolygonWithHoles[];
  mask: BinaryMask;
}

/** What became of one prompt: `known` false means no detector class matched (nothing ran for it). */
export interface TextPromptResult {
  text: string;
  known: boolean;
  /** The detector classes the prompt was read as, e.g. ['cat'] for "kittens". */
  classes: string[];
  /** Why the prompt is not known, in words (from the prompt parser). */
  reason?: string;
  instances: TextInstanceResult[];
}

export interface SegmentTextResponse {
  results: TextPromptResult[];
  timings: { detectorMs: number; embedMs: number; decoderMs: number; totalMs: number; embeddingCacheHit: boolean };
}

export interface SimilarInstanceResult {
  /** Cosine similarity × SAM's predicted IoU × size likeness, best first (src/engine/text/similar.ts). */
  score: number;
  similarity: number;
  area: number;
  polygons: PolygonWithHoles[];
  mask: BinaryMask;
}

export interface FindSimilarResponse {
  instances: SimilarInstanceResult[];
  /** Candidates SAM outlined that were turned down because they do not look like the example. */
  rejected?: number;
  timings: { totalMs: number };
}

export type WorkerRequest =
  /** `mirrored`: also embed the photo's mirror image, which `mirrorAverage` predictions decode beside it. */
  | { id: number; type: 'embed'; image: RgbaImage; imageId?: string; mirrored?: boolean }
  | { id: number; type: 'segmentText'; image: RgbaImage; imageId?: string; prompts: string[]; outline?: Partial<OutlineOptions> }
  | { id: number; type: 'findSimilar'; imageKey: string; mask: BinaryMask; outline?: Partial<OutlineOptions> }
  /** `earlyMask`: post the best candidate's mask (a 'mask' message) before tracing its polygons. */
  | { id: number; type: 'predict'; imageKey: string; prompt: VisualPrompt; options?: Partial<SegmentationOptions>; earlyMask?: boolean }
  | { id: number; type: 'retrace'; masks: BinaryMask[]; outline: Partial<OutlineOptions> }
  | { id: number; type: 'hasEmbedding'; imageKey: string }
  | { id: number; type: 'exportEmbedding'; imageKey: string }
  | { id: number; type: 'importEmbedding'; image: RgbaImage; imageId: string; record: EmbeddingRecord }
  /** The mirror image's embedding, made elsewhere, for the photo cached under `imageKey` (mirror averaging). */
  | { id: number; type: 'importMirrorEmbedding'; imageKey: string; record: EmbeddingRecord }
  | { id: number; type: 'forget'; imageKey?: string };

export interface SerializedError {
  name: string;
  message: string;
}

export type WorkerMessage =
  | { type: 'progress'; progress: ModelProgress }
  | { type: 'ready'; backend: BackendInfo; timings: StartTimings; modelSource: ModelSource; encoderModel: string }
  | { type: 'start-failed'; error: SerializedError; backendTimedOut: boolean }
  /** A predict's best mask, ahead of its result: the page can draw it while the polygons are traced. */
  | { type: 'mask'; id: number; mask: BinaryMask }
  | { type: 'result'; id: number; ok: true; value: unknown }
  | { type: 'result'; id: number; ok: false; error: SerializedError };

export function serializeError(error: unknown): SerializedError {
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}

/**
 * The distinct ArrayBuffers behind some views, for a transfer list. A buffer listed twice makes
 * postMessage throw; shared memory cannot be transferred at all (it is shared by cloning instead).
 */
export function transferablesOf(views: readonly ArrayBufferView[]): ArrayBuffer[] {
  const seen = new Set<ArrayBuffer>();
  for (const view of views) {
    const buffer = view.buffer;
    if (buffer instanceof ArrayBuffer && buffer.byteLength > 0) seen.add(buffer);
  }
  return [...seen];
}
