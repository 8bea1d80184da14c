/**
 * POST /api/v1/embeddings: the server computes a photo's image embedding once (onnxruntime-node),
 * and the browser decodes every click of that photo locally. The embedding is only meaningful to
 * the decoder of the encoder that made it, so the encoder's identity travels with it both ways.
 */
import { z } from 'zod';
import { ImageField } from './segmentation';

/** `file@sha256` of an encoder, as the studio's worker names the one it loaded (public/models/manifest.json). */
export const EncoderId = z.string().min(1).max(200);

export const EmbeddingRequest = z.object({
  image: ImageField,
  model: EncoderId.optional().describe(
    'The encoder (`file@sha256`) the caller will decode with. When the server runs another encoder the call is refused with 409 `model-mismatch` before anything is charged.',
  ),
});
export type EmbeddingRequest = z.infer<typeof EmbeddingRequest>;

export const EncoderIdentity = z.object({
  /** The model file, e.g. `sam-encoder-int8.onnx`. */
  file: z.string(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** `file@sha256`: compare it with the decoder's own before using the embedding. */
  id: EncoderId,
});
export type EncoderIdentity = z.infer<typeof EncoderIdentity>;

/** The name of the embedding's encoding on the wire (embeddingCodec.ts). */
export const EMBEDDING_ENCODING = 'int8-per-channel';

export const EmbeddingResponse = z.object({
  /** The image's content key (`sha256:` + URL-safe Base64 of the SHA-256 of the file's bytes). */
  imageId: z.string(),
  model: EncoderIdentity,
  /** The image as decoded (EXIF orientation applied): the embedding belongs to these pixels. */
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  embedding: z.object({
    /** (1, C, H, W): (1, 256, 64, 64) for SAM ViT-B. */
    dims: z.array(z.number().int().positive()).length(4),
    encoding: z.literal(EMBEDDING_ENCODING),
    /** One scale per channel (C of them): value = int8 × scale. */
    scales: z.array(z.number().finite().nonnegative()),
    /** Base64 of the int8 values in (N, C, H, W) order. */
    data: z.string(),
  }),
});
export type EmbeddingResponse = z.infer<typeof EmbeddingResponse>;

/** Schema, and the sizes agree with each other (C scales, 1·C·H·W bytes). */
export function isConsistentEmbedding(value: unknown): value is EmbeddingResponse {
  const parsed = EmbeddingResponse.safeParse(value);
  if (!parsed.success) return false;
  const { dims, scales, data } = parsed.data.embedding;
  const count = dims.reduce((a, b) => a * b, 1);
  return dims[0] === 1 && scales.length === dims[1] && data.length === Math.ceil(count / 3) * 4;
}
