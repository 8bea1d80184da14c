/**
 * EngineApi: everything the engine does for a caller, as one typed interface. It is implemented once,
 * in-process (`EngineService`, engineService.ts), and the same interface is served over a Web Worker
 * (worker/engine.worker.ts, worker/client.ts) by the generic transport (transport.ts).
 *
 * To add a capability:
 *   1. a method here, `name(request: NameRequest, call?: Call<Event>): Promise<NameResponse>`, with its
 *      request and response types beside it (plain, structured-cloneable data), and, when buffers of
 *      its request, result or events should move rather than be copied, an entry in ENGINE_TRANSFERS;
 *   2. its implementation in EngineService;
 *   3. its caller (the studio's EngineSession, a bench, a test).
 * Nothing in the transport, the worker entry or the client changes.
 */
import type { OutlineOptions, SegmentationOptions } from '../options';
import type { BackendInfo, ModelName } from '../runtime';
import type { BinaryMask, PolygonWithHoles, RgbaImage, VisualPrompt } from '../types';
import { EmbeddingMissingError, type EmbeddingView } from '../engine';
import { PromptError } from '../prompt';
import type { EverythingRule, EverythingSettings, ProposalSource } from '../everything/segmentEverything';
import type { ExemplarRule, ExemplarSource } from '../text/exemplar';
import type { RegionDescriptor } from '../learn/descriptors';
import type { DetectorRun } from '../text/detector';
import type { LearnedClassesState } from '../learn/learnedClasses';
import type { Call, ErrorClasses, TransferTable } from './transport';

export interface EngineApi {
  /** What this engine runs: its backend, the identity of its encoder, how it started. */
  describe(): Promise<EngineDescription>;
  /**
   * Computes (or finds cached) the image embedding; `mirrored`: the mirror image's too (mirror
   * averaging). Cancelled while it waits behind other requests, it never runs.
   */
  embed(request: EmbedRequest, call?: Call): Promise<EmbedResponse>;
  /**
   * Candidates best first, each with polygons traced at `options.tolerance`, beside the mask. With an
   * `onEvent`, the best candidate's mask arrives as an event as soon as the decoder has answered.
   */
  predict(request: PredictRequest, call?: Call<BinaryMask>): Promise<PredictResponse>;
  /** The outlines of masks the caller holds, at another tolerance; answered ahead of queued decodes. */
  retrace(request: RetraceRequest): Promise<RetraceResponse>;
  /** Text prompts on the image (pass the `imageId` of `embed` to reuse its embedding). */
  segmentText(request: SegmentTextRequest): Promise<SegmentTextResponse>;
  /**
   * Other instances like the object `mask` covers (and `moreExamples`), on the embedded photo `imageKey`:
   * each with its confidence and where it came from (a detector's class or appearance).
   */
  findSimilar(request: FindSimilarRequest): Promise<FindSimilarResponse>;
  /**
   * Every object and region of the photo as proposals (src/engine/everything/). With an `onEvent`,
   * progress after every decoder run and the proposals as they are found; cancelled (the signal), no
   * decoder run starts after it and the call rejects with the signal's reason.
   */
  segmentEverything(request: SegmentEverythingRequest, call?: Call<EverythingEvent>): Promise<SegmentEverythingResponse>;
  /**
   * Region descriptors of masks on the photo (src/engine/learn/descriptors.ts): what learned classes
   * (src/engine/learn/learnedClasses.ts) learn from and classify. Embeds the photo unless `imageId`'s
   * embedding is cached; runs the detectors once per call, so describe a photo's regions together.
   */
  describeRegions(request: DescribeRegionsRequest): Promise<DescribeRegionsResponse>;
  /**
   * The detector runs describeRegions needs of a photo (every detector's boxes, COCO-SSD's feature
   * map), with no embedding: a second worker makes them while the person looks at the photo, and the
   * click worker's describeRegions takes them (`detectorRun`) instead of running the detectors itself.
   */
  detectForDescriptors(request: { image: RgbaImage }): Promise<DetectorRun>;
  /**
   * Every instance of a learned model's classes on the photo (src/engine/learn/proposeLearned.ts):
   * segment everything's regions, read as the model's classes where a detector's word names one
   * (`classNames`), classified, most probable first. Embeds the photo unless `imageId`'s embedding is cached.
   */
  proposeLearned(request: ProposeLearnedRequest): Promise<ProposeLearnedResponse>;
  /** A copy of the embedding of `imageKey` with the encoder's identity, or null if none is cached. */
  exportEmbedding(request: { imageKey: string }): Promise<EmbeddingRecord | null>;
  /** An embedding made earlier (IndexedDB, the server) for `image`; refused when another encoder made it. */
  importEmbedding(request: { image: RgbaImage; imageId: string; record: EmbeddingRecord }): Promise<void>;
  /** The mirror image's embedding, made elsewhere, for the photo cached under `imageKey`. */
  importMirrorEmbedding(request: { imageKey: string; record: EmbeddingRecord }): Promise<void>;
  hasEmbedding(request: { imageKey: string }): Promise<boolean>;
  /** The photos the engine holds embeddings of now, least recently used first, and which views of each. */
  cachedEmbeddings(): Promise<{ imageKey: string; views: EmbeddingView[] }[]>;
  /** Drops one cached embedding (or all of them). */
  forget(request: { imageKey?: string }): Promise<void>;
}

/** Which buffers move instead of being copied, per method (the engine keeps none of them). */
export const ENGINE_TRANSFERS: TransferTable<EngineApi> = {
  embed: { request: (r) => (r.handOver ? [r.image.data] : []) },
  predict: { result: (r) => r.candidates.flatMap((c) => [c.lowResLogits, c.mask.data]), event: (mask) => [mask.data] },
  segmentText: { result: (r) => r.results.flatMap((p) => p.instances.map((t) => t.mask.data)) },
  findSimilar: { result: (r) => r.instances.map((f) => f.mask.data) },
  proposeLearned: { result: (r) => r.proposals.map((p) => p.mask.data) },
  detectForDescriptors: { result: (r) => (r.features ? [r.features.data] : []) },
  segmentEverything: { result: (r) => r.proposals.map((p) => p.mask.data), event: (e) => e.added.map((p) => p.mask.data) },
  exportEmbedding: { result: (record) => [record!.data] },
  importMirrorEmbedding: { request: (r) => [r.record.data] },
};

/** The engine's own errors, re-created as instances of their class on the caller's side. */
export const ENGINE_ERRORS: ErrorClasses = { EmbeddingMissingError, PromptError };

export interface EngineDescription {
  backend: BackendInfo;
  /** `file@sha256` of the encoder (public/models/manifest.json): the identity stored with exported embeddings. */
  encoderModel: string;
  /** Model download (or cache read) and session creation times, where the engine loaded its models itself. */
  startTimings?: StartTimings;
  /** 'cache' when both models came from the Cache API (no network needed). */
  modelSource?: ModelSource;
}

export interface ModelProgress {
  /** 'detector…' arrive after start, when the first text prompt loads them. */
  model: Exclude<ModelName, 'decoder-precompute'>;
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

export interface EmbedRequest {
  image: RgbaImage;
  imageId?: string;
  /** Also embed the photo's mirror image, which `mirrorAverage` predictions decode beside it. */
  mirrored?: boolean;
  /** The pixels' buffer moves to the engine instead of being copied (the caller's image is unusable after). */
  handOver?: boolean;
}

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

export interface PredictRequest {
  imageKey: string;
  prompt: VisualPrompt;
  /** Left out: DEFAULT_SEGMENTATION_OPTIONS. */
  options?: Partial<SegmentationOptions>;
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

export interface RetraceRequest {
  masks: BinaryMask[];
  outline: Partial<OutlineOptions>;
}

/** The outlines of masks the page holds, traced again (the Detail slider moved): `polygons[i]` is `masks[i]`'s. */
export interface RetraceResponse {
  polygons: PolygonWithHoles[][];
  timings: { polygonMs: number };
}

export interface SegmentTextRequest {
  image: RgbaImage;
  prompts: string[];
  /** The key of an earlier `embed`: its embedding is reused. */
  imageId?: string;
  outline?: Partial<OutlineOptions>;
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

export interface FindSimilarRequest {
  imageKey: string;
  /** The example: the object the person picked. */
  mask: BinaryMask;
  /** More examples of the same class on the same photo (their classes and appearance are pooled). */
  moreExamples?: BinaryMask[];
  /**
   * The photo: the 'detected' rule runs the detectors on it to read the examples' class (without it,
   * or with a rule of appearance alone, SAM's features answer: src/engine/text/exemplar.ts).
   */
  image?: RgbaImage;
  /** Left out: DEFAULT_EXEMPLAR_RULE. */
  rule?: ExemplarRule;
  outline?: Partial<OutlineOptions>;
}

export interface SimilarInstanceResult {
  /** How sure the engine is that this is another instance of the example's kind, in [0, 1]; best first. */
  confidence: number;
  /** A detection of the examples' class, or SAM's appearance features (src/engine/text/exemplar.ts). */
  source: ExemplarSource;
  /** The detector's class the answer was found as ('detector' answers). */
  detectorClass?: string;
  /** Cosine similarity of the answer's appearance to the examples' ('appearance' answers). */
  similarity?: number;
  area: number;
  polygons: PolygonWithHoles[];
  mask: BinaryMask;
}

export interface FindSimilarResponse {
  instances: SimilarInstanceResult[];
  /**
   * The detector classes the examples were read as (empty: appearance answered). Label all can ask
   * other photos for these classes by text where they hold no example.
   */
  classes?: string[];
  /** Candidates SAM outlined that were turned down because they do not look like the example. */
  rejected?: number;
  timings: { totalMs: number };
}

export interface DescribeRegionsRequest {
  image: RgbaImage;
  /** The key of an earlier `embed`: its embedding is reused. */
  imageId?: string;
  /** Masks at the photo's size (a box a person drew: a filled box, descriptors.ts `boxMask`). */
  masks: BinaryMask[];
  /**
   * This photo's detector runs, made ahead by `detectForDescriptors` (another worker): taken when the
   * engine holds no context of the photo, instead of running the detectors in this call.
   */
  detectorRun?: DetectorRun;
}

export interface DescribeRegionsResponse {
  /** One per mask, in order. */
  descriptors: RegionDescriptor[];
  /**
   * `photoReused`: the photo's detector runs and SAM cells came from an earlier description of it;
   * `detectorsPrepared`: its detector runs came with the request. No detector ran in this call when either is true.
   */
  timings: { embedMs: number; detectMs: number; describeMs: number; photoReused?: boolean; detectorsPrepared?: boolean };
}

export interface ProposeLearnedRequest {
  image: RgbaImage;
  /** The key of an earlier `embed`: its embedding is reused. */
  imageId?: string;
  /** The learned classes (LearnedClasses.toJSON; its examples may be left out: classifying needs none). */
  model: LearnedClassesState;
  /** The detector's word for each class id the model knows by another name (a project's class "3" called "raccoon"). */
  classNames: Record<string, string>;
}

export interface LearnedProposalResult {
  classId: string;
  /** Calibrated, as the model (or the detector's prior) gives it; not clamped. */
  probability: number;
  /** Whose calibration the probability is: the learned model's or the detector's (proposeLearned.ts DETECTOR_SOURCE). */
  source: string;
  polygons: PolygonWithHoles[];
  mask: BinaryMask;
}

export interface ProposeLearnedResponse {
  /** Most probable first. */
  proposals: LearnedProposalResult[];
  timings: { embedMs: number; totalMs: number };
}

export interface SegmentEverythingRequest {
  image: RgbaImage;
  /** The key of an earlier `embed`: its embedding is reused. */
  imageId?: string;
  /** Left out: the shipped rule (`objects`) with its settings; a setting given here replaces the rule's. */
  options?: Partial<EverythingSettings> & { rule?: EverythingRule };
  outline?: Partial<OutlineOptions>;
}

/** One proposal of segment everything, traced; `id` is its order of discovery (events name it). */
export interface EverythingProposalResult {
  id: number;
  /** The decoder's predicted IoU × the mask's stability, in [0, 1]. */
  confidence: number;
  source: ProposalSource;
  /** The detector's class, when a detector's box prompted it. */
  label?: string;
  /** The detector's (calibrated) score of that box. */
  detectorScore?: number;
  area: number;
  polygons: PolygonWithHoles[];
  mask: BinaryMask;
}

/**
 * Progress of one segment-everything call, sent when it starts detecting and after every decoder
 * run: the proposals kept since the last event, and the ids of those dropped since (a later one with
 * a higher predicted IoU overlapped them: SAM's grid rule only).
 */
export interface EverythingEvent {
  stage: 'detect' | 'boxes' | 'grid' | 'tiles';
  decoded: number;
  planned: number;
  added: EverythingProposalResult[];
  removed: number[];
}

export interface SegmentEverythingResponse {
  rule: EverythingRule;
  /** Best first, at most the rule's `maxProposals`. */
  proposals: EverythingProposalResult[];
  decoderRuns: number;
  timings: { embedMs: number; detectMs: number; decodeMs: number; totalMs: number };
}
