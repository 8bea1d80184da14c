/**
 * EngineApi in-process: a SegmentationEngine (point and box prompts, embeddings), a TextService
 * (text prompts, find similar) on that same engine, and polygon tracing beside every mask. The browser
 * worker serves one of these (worker/engine.worker.ts); Node code may call one directly.
 */
import type { EmbeddingView, SegmentationEngine } from '../engine';
import { DEFAULT_EVERYTHING_RULE, EVERYTHING_SETTINGS, segmentEverything, type Proposal } from '../everything/segmentEverything';
import { segmentationOptions } from '../options';
import { maskOutline } from '../polygons';
import type { Tensor } from '../runtime';
import type { TextService } from '../worker/textService';
import type { Call } from './transport';
import { describeMasks, detectorsForDescriptors } from '../learn/describePhoto';
import { PhotoContexts } from '../learn/photoContexts';
import { DETECTORS } from '../catalog';
import { LearnedClasses } from '../learn/learnedClasses';
import { labelsAsClassIds, photoCandidates } from '../learn/photoCandidates';
import { classifyCandidates } from '../learn/proposeLearned';
import type {
  DescribeRegionsRequest,
  DescribeRegionsResponse,
  EmbeddingRecord,
  EmbedRequest,
  EmbedResponse,
  EngineApi,
  EngineDescription,
  EverythingEvent,
  EverythingProposalResult,
  FindSimilarRequest,
  FindSimilarResponse,
  PredictRequest,
  PredictResponse,
  ProposeLearnedRequest,
  ProposeLearnedResponse,
  RetraceRequest,
  RetraceResponse,
  SegmentTextRequest,
  SegmentEverythingRequest,
  SegmentEverythingResponse,
  SegmentTextResponse,
} from './api';
import type { BinaryMask, RgbaImage } from '../types';
import type { DetectorRun } from '../text/detector';

export class EngineService implements EngineApi {
  /** The tail of the requests that use an ORT session: they run one at a time, in the order they came. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly photoContexts = new PhotoContexts();

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
    return this.inTurn(() => this.text.findSimilar(request.imageKey, request.mask, request.outline, request));
  }

  segmentEverything(request: SegmentEverythingRequest, call: Call<EverythingEvent> = {}): Promise<SegmentEverythingResponse> {
    return this.inTurn(async () => {
      const t0 = performance.now();
      const { imageKey } = await this.engine.embed(request.image, request.imageId);
      const embedMs = performance.now() - t0;
      const options = request.options ?? {};
      // Only the detectors whose boxes prompt are fetched and run.
      const rule = options.rule ?? DEFAULT_EVERYTHING_RULE;
      const detectors = rule === 'grid' ? [] : await this.text.detectorsNamed(options.boxDetectors ?? EVERYTHING_SETTINGS[rule].boxDetectors);
      // Each proposal is traced once: for the event that brings it and for the answer.
      const traced = new Map<number, EverythingProposalResult>();
      const result = (p: Proposal, copyMask: boolean): EverythingProposalResult => {
        let done = traced.get(p.id);
        if (!done) {
          const polygons = maskOutline(p.mask, { ...request.outline, area: p.area });
          done = { id: p.id, confidence: p.confidence, source: p.source, ...(p.label === undefined ? {} : { label: p.label }), ...(p.detectorScore === undefined ? {} : { detectorScore: p.detectorScore }), area: p.area, polygons, mask: p.mask };
          traced.set(p.id, done);
        }
        // A copy for an event: the mask's buffer moves with it, and the answer sends the mask again.
        return copyMask ? { ...done, mask: { ...done.mask, data: done.mask.data.slice() } } : done;
      };
      let shown = new Set<number>();
      const onProgress = call.onEvent
        ? (progress: { stage: EverythingEvent['stage']; decoded: number; planned: number; proposals: readonly Proposal[] }) => {
            const now = new Set(progress.proposals.map((p) => p.id));
            const added = progress.proposals.filter((p) => !shown.has(p.id)).map((p) => result(p, true)).filter((p) => p.polygons.length > 0);
            const removed = [...shown].filter((id) => !now.has(id));
            shown = now;
            call.onEvent!({ stage: progress.stage, decoded: progress.decoded, planned: progress.planned, added, removed });
          }
        : undefined;
      const found = await segmentEverything(this.engine, imageKey, { ...options, image: request.image, detectors, signal: call.signal, onProgress });
      const proposals = found.proposals.map((p) => result(p, false)).filter((p) => p.polygons.length > 0);
      const totalMs = performance.now() - t0;
      return { rule: found.rule, proposals, decoderRuns: found.decoderRuns, timings: { embedMs, detectMs: found.timings.detectMs, decodeMs: found.timings.decodeMs, totalMs } };
    }, call.signal);
  }

  describeRegions(request: DescribeRegionsRequest): Promise<DescribeRegionsResponse> {
    return this.inTurn(async () => {
      const t0 = performance.now();
      const { imageKey } = await this.engine.embed(request.image, request.imageId);
      const t1 = performance.now();
      let prepared = false;
      const { context, reused } = await this.photoContexts.of(this.engine, imageKey, request.image, async () => {
        if (!request.detectorRun) return this.detectorRunOf(request.image);
        prepared = true;
        return request.detectorRun;
      });
      const t2 = performance.now();
      const descriptors = describeMasks(context, request.masks);
      return { descriptors, timings: { embedMs: t1 - t0, detectMs: t2 - t1, describeMs: performance.now() - t2, photoReused: reused, detectorsPrepared: prepared } };
    });
  }

  detectForDescriptors(request: { image: RgbaImage }): Promise<DetectorRun> {
    return this.inTurn(() => this.detectorRunOf(request.image));
  }

  private async detectorRunOf(image: RgbaImage): Promise<DetectorRun> {
    return detectorsForDescriptors(image, await this.everyDetector());
  }

  private everyDetector() {
    return this.text.everyDetectorNamed(DETECTORS.map((d) => d.name));
  }

  proposeLearned(request: ProposeLearnedRequest): Promise<ProposeLearnedResponse> {
    return this.inTurn(async () => {
      const t0 = performance.now();
      const { imageKey } = await this.engine.embed(request.image, request.imageId);
      const embedMs = performance.now() - t0;
      const model = LearnedClasses.fromJSON(request.model);
      const detectors = await this.everyDetector();
      const photo = await photoCandidates(this.engine, imageKey, request.image, detectors);
      const candidates = labelsAsClassIds(photo.candidates, request.classNames);
      const found = classifyCandidates(model, candidates, photo.describe(candidates.map((c) => c.mask)), undefined, [], Object.keys(request.classNames));
      const proposals = found
        .map((p) => ({ classId: p.classId, probability: p.probability, source: p.source, polygons: maskOutline(p.mask), mask: p.mask }))
        .filter((p) => p.polygons.length > 0);
      return { proposals, timings: { embedMs, totalMs: performance.now() - t0 } };
    });
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
    return this.inTurn(() => {
      this.engine.forget(request.imageKey);
      this.photoContexts.forget(request.imageKey);
    });
  }

  /** The tensor of an embedding made elsewhere, refused unless this engine's encoder made it. */
  private fromThisEncoder(record: EmbeddingRecord): Tensor {
    const own = this.description.encoderModel;
    if (record.model !== own) throw new Error(`the embedding is from ${record.model}, this engine runs ${own}`);
    return { data: record.data, dims: record.dims };
  }
}
