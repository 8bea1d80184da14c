/** Messages between the inference pool (main thread) and its workers. Plain structured-clone data. */
import type { PvsResponse, SegmentResponse } from '../../contract/segmentation';
import type { BoxPrompt, PointPrompt } from '../../engine/types';

/** The uploaded file's bytes (PNG, JPEG, …); the worker decodes them, off the event loop. */
export type ImageBytes = Uint8Array;

export type InferenceJob =
  | {
      kind: 'pvs';
      image: ImageBytes;
      /** SHA-256 of `image` (Base64) when the caller has it: the decoded-pixels cache key. */
      imageDigest?: string;
      /** Cache key for the embedding (already namespaced per account when client-chosen). */
      cacheKey?: string;
      points?: PointPrompt[];
      box?: BoxPrompt;
      multimaskOutput: boolean;
    }
  | { kind: 'segment'; image: ImageBytes; imageDigest?: string; prompts: string[]; cacheKey?: string };

/** Measured inside the worker: decoding the upload (0 on a decoded-image cache hit) and the engine call. */
export interface WorkerTimings {
  decodeMs: number;
  engineMs: number;
}

export type InferenceResult = ({ kind: 'pvs'; response: PvsResponse } | { kind: 'segment'; response: SegmentResponse }) & {
  timings: WorkerTimings;
};

export type WorkerRequest = { id: number; job: InferenceJob };
export type WorkerReply =
  | { id: number; ok: true; result: InferenceResult }
  | { id: number; ok: false; error: { name: string; message: string } }
  | { ready: true; backend: string }
  | { ready: false; error: string };

export interface WorkerInit {
  modelDir?: string;
  threads?: number;
  embeddingCacheSize?: number;
}
