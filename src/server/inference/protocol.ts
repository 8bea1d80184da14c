/**
 * What an inference worker thread does for the pool (pool.ts), served over the engine's transport
 * (src/engine/service/transport.ts): plain structured-clone data.
 */
import type { ModelPrecision } from '../../engine/adapters/ortNode';
import type { EverythingResponse, PvsResponse, SegmentResponse } from '../../contract/segmentation';
import type { SegmentationOptions } from '../../engine/options';
import type { EmbeddingResponse, EncoderIdentity } from '../../contract/embeddings';
import type { BoxPrompt, PointPrompt } from '../../engine/types';
import type { TransferTable } from '../../engine/service/transport';
import type { LearnedClassesState } from '../../engine/learn/learnedClasses';
import type { LearnedProposals } from '../../contract/learned';

/** The uploaded file's bytes (PNG, JPEG, …); the worker decodes them, off the event loop. */
export type ImageBytes = Uint8Array;

/**
 * The photo a job runs on. `image` may be left out when the worker is likely to hold the decoded
 * pixels under `imageDigest` (an image seen before): on a miss the job fails with ImageNotHeldError
 * and the pool runs it again with the file, from the loader given with the job.
 */
export interface ImageJob {
  image?: ImageBytes;
  /** Names the image (see domain/imageField.ts Upload.digest): the decoded-pixels cache key. */
  imageDigest?: string;
  /** Cache key for the embedding (already namespaced per account when client-chosen). */
  cacheKey?: string;
}

export interface PvsJob extends ImageJob {
  points?: PointPrompt[];
  box?: BoxPrompt;
  /** From the request (`multimaskOutput` → `multimask`, `mirrorAverage`); the engine's defaults fill the rest. */
  options: Partial<SegmentationOptions>;
}

/** Measured inside the worker: decoding the upload (0 on a decoded-image cache hit) and the engine call. */
export interface WorkerTimings {
  decodeMs: number;
  engineMs: number;
}

export interface Timed<Response> {
  response: Response;
  timings: WorkerTimings;
}

export interface WorkerInit {
  modelDir?: string;
  /** Model variants (scripts/onnxQuantize.mjs); default fp32. */
  encoderPrecision?: ModelPrecision;
  decoderPrecision?: ModelPrecision;
  threads?: number;
  embeddingCacheSize?: number;
}

/**
 * What a worker does: one method per capability, served over the engine's transport. A new
 * capability is a method here, its implementation (inferenceService.ts) and its caller
 * (domain/segmentation.ts); the pool and the fair queue pass any method through.
 */
export interface InferenceWorkerApi {
  /** Names the backend and the encoder, once the worker has loaded its engine. */
  describe(): Promise<{ backend: string; encoder: EncoderIdentity }>;
  pvs(job: PvsJob): Promise<Timed<PvsResponse>>;
  segment(job: ImageJob & { prompts: string[] }): Promise<Timed<SegmentResponse>>;
  /** Segment everything with the shipped rule and every detector of the worker. */
  everything(job: ImageJob): Promise<Timed<EverythingResponse>>;
  /** The image embedding itself, in its wire form (POST /api/v1/embeddings); `cacheKey` is the content key. */
  embed(job: ImageJob & { cacheKey: string }): Promise<Timed<EmbeddingResponse>>;
  /** A `learned` job's image (issue 38): every instance of the project's learned classes (engine/learn/proposeLearned.ts). */
  learned(job: LearnedJob): Promise<Timed<LearnedProposals>>;
}

export interface LearnedJob extends ImageJob {
  /** The project's learned model (its examples left out: classifying needs none). */
  model: LearnedClassesState;
  /** The words to ask the detectors for, by learned class id. */
  classNames: Record<string, string>;
}

export type InferenceMethod = Exclude<keyof InferenceWorkerApi, 'describe'>;
export type JobOf<M extends InferenceMethod> = Parameters<InferenceWorkerApi[M]>[0];
export type ResultOf<M extends InferenceMethod> = Awaited<ReturnType<InferenceWorkerApi[M]>>;

/** One job for the pool: a worker method and its request. */
export interface InferenceJob<M extends InferenceMethod = InferenceMethod> {
  method: M;
  request: JobOf<M>;
}

/** What the pool and the fair queue read of any job: its method and the photo it runs on. */
export interface QueuedJob {
  method: InferenceMethod;
  request: ImageJob & { options?: Partial<SegmentationOptions> };
}

/**
 * The file moves instead of being copied when it is all its buffer holds (the caller hands it over);
 * a view into a larger buffer (Node's pool of small Buffers) is copied.
 */
const imageMoves = {
  request: (job: ImageJob) => (job.image && job.image.byteOffset === 0 && job.image.byteLength === job.image.buffer.byteLength ? [job.image] : []),
};
export const INFERENCE_TRANSFERS: TransferTable<InferenceWorkerApi> = { pvs: imageMoves, segment: imageMoves, everything: imageMoves, embed: imageMoves, learned: imageMoves };

/** A job sent without its image, whose pixels the worker does not hold (any more). */
export class ImageNotHeldError extends Error {
  override name = 'ImageNotHeldError';
}
