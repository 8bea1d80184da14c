/**
 * EngineApi in-process: a SegmentationEngine (point and box prompts, embeddings), a TextService
 * (text prompts, find similar) on that same engine, and polygon tracing beside every mask. The browser
 * worker serves one of these (worker/engine.worker.ts); Node code may call one directly.
 */
import type { EmbeddingView, SegmentationEngine } from '../engine';
import { segmentationOptions } from '../options';
import { maskOutline } from '../polygons';
import type { Tensor } from '../runtime';
import type { TextService } from '../worker/textService';
import type { Call } from './transport';
import type {
  EmbeddingRecord,
  EmbedRequest,
  EmbedResponse,
  EngineApi,
  EngineDescription,
  FindSimilarRequest,
  FindSimilarResponse,
  PredictRequest,
  PredictResponse,
  RetraceRequest,
  RetraceResponse,
  SegmentTextRequest,
  SegmentTextResponse,
} from './api';
import type { BinaryMask } from '../types';

export class EngineService implements EngineApi {
  /** The tail of the requests that use an ORT session: they run one at a time, in the order they came. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly engine: SegmentationEngine,
    private readonly text: TextService,
    private readonly description: EngineDescription,
  ) {}

  /**
   * Runs `work` after every earlier request: an ORT session must not run twice concurrently. A call
   * cancelled while it waits never runs.
   */
  private inTurn<R>(work: () => R | Promise<R>, signal?: AbortSignal): Promise<R> {
    const turn = this.queue.then(() => {
      signal?.throwIfAborted();
      return work();
    });
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  async describe(): Promise<EngineDescription> {
    return this.description;
  }

  embed(request: EmbedRequest, call: Call = {}): Promise<EmbedResponse> {
    return this.inTurn(() => this.engine.embed(request.image, request.imageId, { mirrored: request.mirrored }), call.signal);
  }

  predict(request: PredictRequest, call: Call<BinaryMask> = {}): Promise<PredictResponse> {
    return this.inTurn(async () => {
      const options = segmentationOptions(request.options);
      const predicted = await this.engine.predict(request.imageKey, request.prompt, options);
      const best = predicted.candidates[0];
      // A copy: the candidate's own buffer moves to the caller with the result.
      if (call.onEvent && best) call.onEvent({ width: best.mask.width, height: best.mask.height, data: best.mask.data.slice() });
      const t0 = performance.now();
      // Traced here, once, beside the mask: the caller draws these and re-traces only through `retrace`.
      const candidates = predicted.candidates.map((c) => ({
        polygons: maskOutline(c.mask, { ...options, area: c.area }),
        score: c.score,
        area: c.area,
        lowResLogits: c.lowResLogits,
        mask: c.mask,
      }));
      return { candidates, timings: { ...predicted.timings, polygonMs: performance.now() - t0 } };
    }, call.signal);
  }

  /** Not in turn: tracing uses no ORT session, so the Detail slider does not wait behind queued decodes. */
  async retrace(request: RetraceRequest): Promise<RetraceResponse> {
    const t0 = performance.now();
    const polygons = request.masks.map((mask) => maskOutline(mask, request.outline));
    return { polygons, timings: { polygonMs: performance.now() - t0 } };
  }

  segmentText(request: SegmentTextRequest): Promise<SegmentTextResponse> {
    return this.inTurn(() => this.text.segment(request.image, request.prompts, request.imageId, request.outline));
  }

  findSimilar(request: FindSimilarRequest): Promise<FindSimilarResponse> {
    return this.inTurn(() => this.text.findSimilar(request.imageKey, request.mask, request.outline));
  }

  exportEmbedding(request: { imageKey: string }): Promise<EmbeddingRecord | null> {
    return this.inTurn(() => {
      const found = this.engine.getEmbedding(request.imageKey);
      return found ? { model: this.description.encoderModel, dims: [...found.embedding.dims], data: found.embedding.data.slice() } : null;
    });
  }

  importEmbedding(request: { image: EmbedRequest['image']; imageId: string; record: EmbeddingRecord }): Promise<void> {
    return this.inTurn(() => this.engine.adoptEmbedding(request.image, request.imageId, this.fromThisEncoder(request.record)));
  }

  importMirrorEmbedding(request: { imageKey: string; record: EmbeddingRecord }): Promise<void> {
    return this.inTurn(() => this.engine.adoptMirrorEmbedding(request.imageKey, this.fromThisEncoder(request.record)));
  }

  hasEmbedding(request: { imageKey: string }): Promise<boolean> {
    return this.inTurn(() => this.engine.hasEmbedding(request.imageKey));
  }

  /** Not in turn: it reads the cache, no ORT session, so the status bar does not wait behind decodes. */
  async cachedEmbeddings(): Promise<{ imageKey: string; views: EmbeddingView[] }[]> {
    return this.engine.cachedViews();
  }

  forget(request: { imageKey?: string }): Promise<void> {
    return this.inTurn(() => this.engine.forget(request.imageKey));
  }

  /** The tensor of an embedding made elsewhere, refused unless this engine's encoder made it. */
  private fromThisEncoder(record: EmbeddingRecord): Tensor {
    const own = this.description.encoderModel;
    if (record.model !== own) throw new Error(`the embedding is from ${record.model}, this engine runs ${own}`);
    return { data: record.data, dims: record.dims };
  }
}
