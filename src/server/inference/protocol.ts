/** Messages between the inference pool (main thread) and its workers. Plain structured-clone data. */
import type { ModelPrecision } from '../../engine/adapters/ortNode';
import type { PvsResponse, SegmentResponse } from '../../contract/segmentation';
import type { SegmentationOptions } from '../../engine/options';
import type { EmbeddingResponse, EncoderIdentity } from '../../contract/embeddings';
import type { BoxPrompt, PointPrompt } from '../../engine/types';

/** The uploaded file's bytes (PNG, JPEG, …); the worker decodes them, off the event loop. */
export type ImageBytes = Uint8Array;

/**
 * `image` may be left out when the worker is likely to hold the decoded pixels under `imageDigest`
 * (an image seen before): on a miss the worker asks for the file (WorkerReply `needsImage`) and the
 * pool sends it (WorkerRequest `image`), from the loader given with the job.
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
  | { kind: 'embed'; response: EmbeddingResponse }
) & {
  timings: WorkerTimings;
};

export type WorkerRequest =
  | { id: number; job: InferenceJob }
  /** The file a job left out, after the worker asked for it; or why there is none. */
  | { id: number; image: ImageBytes }
  | { id: number; imageError: string };
export type WorkerReply =
  | { id: number; needsImage: true }
  | { id: number; ok: true; result: InferenceResult }
  | { id: number; ok: false; error: { name: string; message: string } }
  | { ready: true; backend: string; encoder: EncoderIdentity }
  | { ready: false; error: string };

export interface WorkerInit {
  modelDir?: string;
  /** Model variants (scripts/onnxQuantize.mjs); default fp32. */
  encoderPrecision?: ModelPrecision;
  decoderPrecision?: ModelPrecision;
  threads?: number;
  embeddingCacheSize?: number;
}
