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

/** The uploaded file's bytes (PNG, JPEG, …); the worker decodes them, off the event loop. */
export type ImageBytes = Uint8Array;

/**
 * `image` may be left out when the worker is likely to hold the decoded pixels under `imageDigest`
 * (an image seen before): on a miss the job fails with ImageNotHeldError and the pool runs it again
 * with the file, from the loader given with the job.
 */
export type InferenceJob =
  | {
      kind: 'pvs';
      image?: ImageBytes;
      /** Names the image (see domain/imageField.ts Upload.digest): the decoded-pixels cache key. */
      imageDigest?: string;
      /** Cache key for the embedding (already namespaced per account when client-chosen). */
      cacheKey?: string;
      points?: PointPrompt[];
      box?: BoxPrompt;
      /** From the request (`multimaskOutput` → `multimask`, `mirrorAverage`); the engine's defaults fill the rest. */
      options: Partial<SegmentationOptions>;
    }
  | { kind: 'segment'; image?: ImageBytes; imageDigest?: string; prompts: string[]; cacheKey?: string }
  /** Segment everything with the shipped rule and every detector of the worker. */
  | { kind: 'everything'; image?: ImageBytes; imageDigest?: string; cacheKey?: string }
  /** The image embedding itself, in its wire form (POST /api/v1/embeddings); `cacheKey` is the content key. */
  | { kind: 'embed'; image?: ImageBytes; imageDigest?: string; cacheKey: string };

/** Measured inside the worker: decoding the upload (0 on a decoded-image cache hit) and the engine call. */
export interface WorkerTimings {
  decodeMs: number;
  engineMs: number;
}

export type InferenceResult = (
  | { kind: 'pvs'; response: PvsResponse }
  | { kind: 'segment'; response: SegmentResponse }
  | { kind: 'everything'; response: EverythingResponse }
  | { kind: 'embed'; response: EmbeddingResponse }
) & {
  timings: WorkerTimings;
};

export interface WorkerInit {
  modelDir?: string;
  /** Model variants (scripts/onnxQuantize.mjs); default fp32. */
  encoderPrecision?: ModelPrecision;
  decoderPrecision?: ModelPrecision;
  threads?: number;
  embeddingCacheSize?: number;
}

export interface InferenceWorkerApi {
  /** Names the backend and the encoder, once the worker has loaded its engine. */
  describe(): Promise<{ backend: string; encoder: EncoderIdentity }>;
  run(job: InferenceJob): Promise<InferenceResult>;
}

/**
 * The file moves instead of being copied when it is all its buffer holds (the caller hands it over);
 * a view into a larger buffer (Node's pool of small Buffers) is copied.
 */
export const INFERENCE_TRANSFERS: TransferTable<InferenceWorkerApi> = {
  run: { request: (job) => (job.image && job.image.byteOffset === 0 && job.image.byteLength === job.image.buffer.byteLength ? [job.image] : []) },
};

/** A job sent without its image, whose pixels the worker does not hold (any more). */
export class ImageNotHeldError extends Error {
  override name = 'ImageNotHeldError';
}
