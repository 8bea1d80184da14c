/**
 * What an inference worker thread runs (worker.ts serves it to the pool): one engine (ONNX sessions +
 * embedding cache), the detectors, the text segmenter and segment everything on them, and the
 * decoded pixels of recent uploads.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EMBEDDING_ENCODING, type EmbeddingResponse, type EncoderIdentity } from '../../contract/embeddings';
import type { EverythingResponse, PvsResponse, SegmentResponse } from '../../contract/segmentation';
import { decodeImage } from '../../engine/adapters/nodeImage';
import { defaultModelDir, loadNodeEngine } from '../../engine/adapters/ortNode';
import { samFiles } from '../../engine/catalog';
import { loadNodeDetectors } from '../../engine/adapters/textNode';
import { runEverything } from '../../engine/everything/response';
import type { ConceptDetector } from '../../engine/text/detector';
import { createTextSegmenter, type TextPipeline, type TextSegmenter } from '../../engine/text/pipeline';
import { LearnedClasses } from '../../engine/learn/learnedClasses';
import { labelsAsClassIds, photoCandidates } from '../../engine/learn/photoCandidates';
import { classifyCandidates, DETECTOR_SOURCE } from '../../engine/learn/proposeLearned';
import { maskOutline, outerRings } from '../../engine/polygons';
import type { LearnedProposals } from '../../contract/learned';
import { quantizeEmbedding } from '../../engine/embeddingCodec';
import type { SegmentationEngine } from '../../engine/engine';
import { LruCache } from '../../engine/lru';
import type { RgbaImage } from '../../engine/types';
import { runPvs } from '../../engine/pvs';
import { ImageNotHeldError, type ImageJob, type InferenceWorkerApi, type LearnedJob, type PvsJob, type Timed, type WorkerInit } from './protocol';

/** The encoder this worker runs, named as the studio names the one it loaded (`file@sha256`). */
function encoderIdentity(init: WorkerInit): EncoderIdentity {
  const file = samFiles({ encoderPrecision: init.encoderPrecision }).encoder;
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

/**
 * Decoded pixels of recent uploads, by file hash: a client segmenting the same photo again (the
 * imageId flow) pays neither the decode nor, thanks to the engine's cache, the encoder. Bounded by
 * bytes, not entries: a few large photos must not exhaust memory.
 */
const DECODED_BUDGET_BYTES = 256 * 1024 * 1024;

export class InferenceService implements InferenceWorkerApi {
  private readonly decoded = new LruCache<string, RgbaImage>(DECODED_BUDGET_BYTES, (image) => image.data.byteLength);

  private constructor(
    private readonly init: WorkerInit,
    private readonly engine: SegmentationEngine,
    private readonly detectors: readonly ConceptDetector[],
    private readonly textSegmenter: TextSegmenter & { readonly pipeline: TextPipeline },
    private readonly encoder: EncoderIdentity,
  ) {}

  static async start(init: WorkerInit = {}): Promise<InferenceService> {
    const engine = await loadNodeEngine({
      modelDir: init.modelDir,
      threads: init.threads,
      encoderPrecision: init.encoderPrecision,
      decoderPrecision: init.decoderPrecision,
      embeddingCacheSize: init.embeddingCacheSize,
    });
    const detectors = await loadNodeDetectors({ modelDir: init.modelDir, threads: init.threads });
    return new InferenceService(init, engine, detectors, createTextSegmenter(engine, detectors), encoderIdentity(init));
  }

  async describe(): Promise<{ backend: string; encoder: EncoderIdentity }> {
    const { engine, init } = this;
    const backend = `${engine.backend.name} x${engine.backend.threads}, encoder ${init.encoderPrecision ?? 'fp32'}, decoder ${init.decoderPrecision ?? 'fp32'} (split: once per image + per click)`;
    return { backend, encoder: this.encoder };
  }

  pvs(job: PvsJob): Promise<Timed<PvsResponse>> {
    return this.timed(job, async (image) => (await runPvs(this.engine, image, { points: job.points, box: job.box, imageId: job.cacheKey }, job.options)).response);
  }

  segment(job: ImageJob & { prompts: string[] }): Promise<Timed<SegmentResponse>> {
    return this.timed(job, (image) => this.textSegmenter.segment(image, job.prompts, job.cacheKey));
  }

  everything(job: ImageJob): Promise<Timed<EverythingResponse>> {
    return this.timed(job, async (image) => (await runEverything(this.engine, image, { imageId: job.cacheKey, detectors: this.detectors })).response);
  }

  embed(job: ImageJob & { cacheKey: string }): Promise<Timed<EmbeddingResponse>> {
    return this.timed(job, (image) => embeddingOf(this.engine, this.encoder, image, job.cacheKey));
  }

  learned(job: LearnedJob): Promise<Timed<LearnedProposals>> {
    return this.timed(job, async (image) => {
      const { imageKey } = await this.engine.embed(image, job.cacheKey);
      const model = LearnedClasses.fromJSON(job.model);
      const photo = await photoCandidates(this.engine, imageKey, image, this.detectors);
      const candidates = labelsAsClassIds(photo.candidates, job.classNames);
      const found = classifyCandidates(model, candidates, photo.describe(candidates.map((c) => c.mask)), undefined, [], Object.keys(job.classNames));
      return {
        predictions: found
          .map((p) => ({ classId: p.classId, confidence: Math.min(1, Math.max(0, p.probability)), source: p.source === DETECTOR_SOURCE ? ('detector' as const) : ('learned' as const), masks: outerRings(maskOutline(p.mask)) }))
          .filter((p) => p.masks.length > 0),
      };
    });
  }

  /** The job's photo, then `work` on it, each timed. Jobs arrive one at a time (the pool gives a worker its next job once it answered). */
  private async timed<R>(job: ImageJob, work: (image: RgbaImage) => Promise<R>): Promise<Timed<R>> {
    const t0 = performance.now();
    const image = await this.pixels(job);
    const t1 = performance.now();
    const response = await work(image);
    return { response, timings: { decodeMs: t1 - t0, engineMs: performance.now() - t1 } };
  }

  private async pixels(job: ImageJob): Promise<RgbaImage> {
    if (!job.image && !job.imageDigest) throw new Error('a job needs its image or the digest of one');
    const key = job.imageDigest ?? createHash('sha256').update(job.image!).digest('base64');
    const hit = this.decoded.get(key);
    if (hit) return hit;
    if (!job.image) throw new ImageNotHeldError(`the pixels of ${key} are not held here: send the file`);
    const image = await decodeImage(job.image);
    if (image.data.byteLength <= DECODED_BUDGET_BYTES / 4) this.decoded.set(key, image);
    return image;
  }
}
