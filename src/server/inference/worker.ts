/** Inference worker thread: owns one engine (ONNX sessions + embedding cache) and runs jobs in order. */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { EMBEDDING_ENCODING, type EmbeddingResponse, type EncoderIdentity } from '../../contract/embeddings';
import { decodeImage, ImageDecodeError } from '../../engine/adapters/nodeImage';
import { defaultModelDir, loadNodeEngine, modelFileNames } from '../../engine/adapters/ortNode';
import { quantizeEmbedding } from '../../engine/embeddingCodec';
import type { SegmentationEngine } from '../../engine/engine';
import type { RgbaImage } from '../../engine/types';
import { runPvs } from '../../engine/pvs';
import type { InferenceJob, InferenceResult, WorkerInit, WorkerReply, WorkerRequest } from './protocol';
import { createTextSegmenter } from './textSegmenter';

const port = parentPort;
if (!port) throw new Error('worker.ts must run in a worker thread');

const init = (workerData ?? {}) as WorkerInit;

/** The encoder this worker runs, named as the studio names the one it loaded (`file@sha256`). */
function encoderIdentity(): EncoderIdentity {
  const file = modelFileNames(init.encoderPrecision, init.decoderPrecision).encoder;
  const sha256 = createHash('sha256').update(readFileSync(join(init.modelDir ?? defaultModelDir(), file))).digest('hex');
  return { file, sha256, id: `${file}@${sha256}` };
}

/** The embedding of `image` (computed once, then from the engine's cache) in its wire form. */
async function embeddingOf(engine: SegmentationEngine, encoder: EncoderIdentity, image: RgbaImage, contentKey: string): Promise<EmbeddingResponse> {
  const { imageKey } = await engine.embed(image, contentKey);
  const found = engine.getEmbedding(imageKey);
  if (!found) throw new Error('the embedding left the cache before it could be read');
  const { dims, scales, data } = quantizeEmbedding(found.embedding);
  return {
    imageId: contentKey,
    model: encoder,
    width: image.width,
    height: image.height,
    embedding: {
      dims,
      encoding: EMBEDDING_ENCODING,
      scales: Array.from(scales),
      data: Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64'),
    },
  };
}

async function main(): Promise<void> {
  const engine = await loadNodeEngine({
    modelDir: init.modelDir,
    threads: init.threads,
    encoderPrecision: init.encoderPrecision,
    decoderPrecision: init.decoderPrecision,
    embeddingCacheSize: init.embeddingCacheSize,
  });
  const textSegmenter = await createTextSegmenter(engine, { modelDir: init.modelDir, threads: init.threads });
  const encoder = encoderIdentity();
  // Decoded pixels of recent uploads, by file hash: a client segmenting the same photo again
  // (the imageId flow) pays neither the decode nor, thanks to the engine's cache, the encoder.
  // Bounded by bytes, not entries: a few large photos must not exhaust memory.
  const decoded = new Map<string, RgbaImage>();
  let decodedBytes = 0;
  const DECODED_BUDGET_BYTES = 256 * 1024 * 1024;

  // Files this worker asked the pool for (jobs sent without their image), by job id.
  const awaitedImages = new Map<number, { resolve(bytes: Uint8Array): void; reject(error: Error): void }>();
  function askForImage(id: number): Promise<Uint8Array> {
    return new Promise((resolve, reject) => {
      awaitedImages.set(id, { resolve, reject });
      port!.postMessage({ id, needsImage: true } satisfies WorkerReply);
    });
  }

  async function pixels(id: number, job: InferenceJob): Promise<RgbaImage> {
    if (!job.image && !job.imageDigest) throw new Error('a job needs its image or the digest of one');
    const key = job.imageDigest ?? createHash('sha256').update(job.image!).digest('base64');
    const hit = decoded.get(key);
    if (hit) {
      decoded.delete(key);
      decoded.set(key, hit); // most recently used last
      return hit;
    }
    const image = await decodeImage(job.image ?? (await askForImage(id)));
    if (image.data.byteLength <= DECODED_BUDGET_BYTES / 4) {
      decoded.set(key, image);
      decodedBytes += image.data.byteLength;
      for (const [oldKey, old] of decoded) {
        if (decodedBytes <= DECODED_BUDGET_BYTES) break;
        decoded.delete(oldKey);
        decodedBytes -= old.data.byteLength;
      }
    }
    return image;
  }

  async function run(id: number, job: InferenceJob): Promise<InferenceResult> {
    const t0 = performance.now();
    const image = await pixels(id, job);
    const t1 = performance.now();
    const timings = () => ({ decodeMs: t1 - t0, engineMs: performance.now() - t1 });
    if (job.kind === 'pvs') {
      const { response } = await runPvs(engine, image, { points: job.points, box: job.box, imageId: job.cacheKey }, job.options);
      return { kind: 'pvs', response, timings: timings() };
    }
    if (job.kind === 'embed') return { kind: 'embed', response: await embeddingOf(engine, encoder, image, job.cacheKey), timings: timings() };
    const response = await textSegmenter.segment(image, job.prompts, job.cacheKey);
    return { kind: 'segment', response, timings: timings() };
  }

  port!.on('message', (message: WorkerRequest) => {
    if (!('job' in message)) {
      const awaited = awaitedImages.get(message.id);
      awaitedImages.delete(message.id);
      if ('image' in message) awaited?.resolve(message.image);
      else awaited?.reject(new ImageDecodeError(`the image could not be read: ${message.imageError}`));
      return;
    }
    run(message.id, message.job).then(
      (result) => port!.postMessage({ id: message.id, ok: true, result } satisfies WorkerReply),
      (error: unknown) => {
        const e = error instanceof Error ? error : new Error(String(error));
        port!.postMessage({ id: message.id, ok: false, error: { name: e.name, message: e.message } } satisfies WorkerReply);
      },
    );
  });
  port!.postMessage({ ready: true, backend: `${engine.backend.name} x${engine.backend.threads}, encoder ${init.encoderPrecision ?? 'fp32'}, decoder ${init.decoderPrecision ?? 'fp32'} (split: once per image + per click)`, encoder } satisfies WorkerReply);
}

main().catch((error: unknown) => {
  port.postMessage({ ready: false, error: error instanceof Error ? error.message : String(error) } satisfies WorkerReply);
});
