import type { EmbeddingView } from '../../engine/engine';
import { mirrorImage } from '../../engine/mirror';
import type { OutlineOptions, SegmentationOptions } from '../../engine/options';
import { maskOutline } from '../../engine/polygons';
import type { EmbeddingRecord, EverythingEvent, FindSimilarResponse, ModelProgress, PolygonCandidate, PredictResponse, SegmentEverythingRequest, SegmentEverythingResponse, SegmentTextResponse } from '../../engine/service/api';
import type { Call } from '../../engine/service/transport';
import type { BinaryMask, PolygonWithHoles, RgbaImage, VisualPrompt } from '../../engine/types';
import type { ExemplarRule } from '../../engine/text/exemplar';
import type { RegionDescriptor } from '../../engine/learn/descriptors';
import type { EngineWorker, EngineWorkerStartOptions } from '../../engine/worker/client';
import type { useEngineStatus } from '../state/engineStatus';
import type { StoredEmbeddings } from './embeddingStore';
import type { ModelVariants } from './modelVariants';
import { EmbedQueue, type EmbedUrgency } from './embedQueue';
import { PreparedDetectorRuns } from './preparedDetectorRuns';

/**
 * The background worker's start options: one WASM thread (the other cores stay with clicks), one
 * embedding held (a mirror image, handed on at once), no decoder warm-up (it decodes nothing).
 */
export const BACKGROUND_WORKER = { maxThreads: 1, embeddingCacheSize: 1, warmUpDecoder: false } as const;

/** What a segment-everything call asks of a photo the session holds (left out: the shipped rule). */
export type EverythingAsk = Pick<SegmentEverythingRequest, 'options' | 'outline'>;

/** A candidate of a local decode, with the tolerance the worker traced its `polygons` at. */
export type LocalCandidate = Readonly<PolygonCandidate> & { readonly outlineTolerance: number };

/** What the session needs of the page, injected so that it reads no store and no preference itself. */
export interface EngineSessionPorts {
  /** Starts an engine worker where the models are served (the browser: `startEngineWorker`). */
  launch(options: Omit<EngineWorkerStartOptions, 'modelBaseUrl'>): Promise<EngineWorker>;
  /** The model variants wanted now; a change restarts the engine with empty caches. */
  models(): ModelVariants;
  /** The status bar's store; a loaded photo's pixels. */
  status(): ReturnType<typeof useEngineStatus.getState>;
  pixels(imageId: string): RgbaImage | null | undefined;
  /** Embeddings kept across visits (IndexedDB), by key and encoder identity. */
  stored: StoredEmbeddings;
  /** Server start: the photo's embedding from the server, or undefined (then this device's encoder runs). */
  serverEmbedding(imageId: string, encoderModel: string): Promise<EmbeddingRecord | undefined>;
  /** Whether Server start is chosen (it costs a credit per photo, so nothing is embedded ahead). */
  serverStart(): boolean;
}

/** One started engine and what it holds: its caches are keyed by the model variants it runs. */
interface EngineRun {
  readonly models: string;
  readonly clicks: Promise<EngineWorker>;
  /** A second worker, on one thread, for work no click may wait behind: mirror images' embeddings, descriptors' detector runs. */
  background?: Promise<EngineWorker>;
  /** Detector runs made ahead in the background worker, for the first decision on a photo (preparedDetectorRuns.ts). */
  readonly prepared: PreparedDetectorRuns;
  readonly embeddings: Map<string, Promise<string>>;
  readonly embedded: Set<string>;
  readonly mirrorEmbeddings: Map<string, Promise<string>>;
  readonly detectorDownloads: Map<string, ModelProgress>;
  /** Where embeddings wait their turn for the click worker's encoder (embedQueue.ts). */
  readonly queue: EmbedQueue;
}

/**
 * The browser engine of one studio: its click worker and its mirror worker, started on demand, and
 * what they hold (which photos are embedded), for the model variants chosen now. `dispose` ends the
 * workers; a model switch or a crashed worker starts a fresh engine on the next call, no reload.
 * Each image is embedded once per engine (the worker's cache answers repeats); predictions on an
 * image wait for its embedding. The photo on screen is embedded before those asked for in the
 * background, and an embedding the worker's cache let go is made again when next needed.
 */
export class EngineSession {
  private run: EngineRun | undefined;

  constructor(private readonly ports: EngineSessionPorts) {}

  /** Starts the engine (or returns the started one) for the model variants wanted now. */
  start(): Promise<EngineWorker> {
    return this.current().clicks;
  }

  /** Ends the workers and forgets what they held; the next call starts a fresh engine. */
  dispose(): void {
    const run = this.run;
    this.run = undefined;
    if (!run) return;
    for (const worker of [run.clicks, run.background]) void worker?.then((w) => w.terminate(), () => undefined);
  }

  private current(): EngineRun {
    const models = this.ports.models();
    const key = `${models.encoder}/${models.decoder}`;
    if (this.run?.models === key) return this.run;
    this.dispose();
    const run: EngineRun = {
      models: key,
      clicks: this.startClickWorker(models),
      embeddings: new Map(),
      embedded: new Set(),
      mirrorEmbeddings: new Map(),
      detectorDownloads: new Map(),
      queue: new EmbedQueue(),
      // Not for an engine ended meanwhile: its background worker would outlive it.
      prepared: new PreparedDetectorRuns(async () => {
        if (this.run !== run) throw new Error('the engine was ended');
        return (await this.backgroundWorker(run)).api;
      }),
    };
    this.run = run;
    run.clicks.then(
      // A crashed worker: the next call starts a fresh engine (its caches went with the worker).
      (worker) => void worker.gone.then((error) => this.lost(run, `the engine stopped (${error.message}); it starts again on the next request`)),
      (error: unknown) => this.lost(run, messageOf(error)),
    );
    return run;
  }

  private lost(run: EngineRun, error: string): void {
    if (this.run !== run) return;
    this.dispose();
    this.ports.status().update({ phase: 'error', error, embedding: null });
  }

  private async startClickWorker(models: ModelVariants): Promise<EngineWorker> {
    this.ports.status().update({ phase: 'downloading', error: null, progress: {} });
    const worker = await this.ports.launch({
      encoderPrecision: models.encoder,
      decoderPrecision: models.decoder,
      onProgress: (p) => this.showProgress(p),
    });
    this.ports.status().update({ phase: 'ready', backend: { ...worker.description.backend }, models });
    return worker;
  }

  private showProgress(p: ModelProgress): void {
    const status = this.ports.status();
    if (p.model.startsWith('detector')) {
      // Loaded lazily after start: their own progress (the detectors as one download), the engine stays 'ready' meanwhile.
      const all = [...(this.run?.detectorDownloads.set(p.model, p).values() ?? [p])];
      status.update({ detector: { loadedBytes: all.reduce((n, d) => n + d.loadedBytes, 0), totalBytes: all.reduce((n, d) => n + d.totalBytes, 0) } });
      return;
    }
    const progress = { ...status.progress, [p.model]: { loadedBytes: p.loadedBytes, totalBytes: p.totalBytes } };
    const downloaded = progress.encoder && progress.decoder && Object.values(progress).every((m) => m && m.loadedBytes >= m.totalBytes);
    // Both files in: what remains is creating the inference sessions.
    status.update({ progress, phase: downloaded ? 'starting' : 'downloading' });
  }

  /** What the click worker's engine holds now (the status bar's details): photos and their views; none before it starts. */
  async cachedEmbeddings(): Promise<{ imageKey: string; views: EmbeddingView[] }[]> {
    const worker = await this.run?.clicks.catch(() => undefined);
    return worker ? worker.api.cachedEmbeddings() : [];
  }

  isEmbedded(imageId: string): boolean {
    return this.run?.embedded.has(imageId) ?? false;
  }

  /** Whether the photo's embedding waits behind another photo's encoder run. */
  isWaitingToEmbed(imageId: string): boolean {
    return this.run?.queue.isWaiting(imageId) ?? false;
  }

  /**
   * Embeds the image (once); resolves to the worker's image key. An embedding stored by an earlier
   * visit is handed to the worker instead of running the encoder; in Server start the server makes
   * it, else — or when the server cannot — this device's encoder does; a new one is stored either way.
   * `now` (a click, the photo on screen) goes before every photo asked for in the `background`.
   */
  ensureEmbedding(imageId: string, urgency: EmbedUrgency = 'now'): Promise<string> {
    const run = this.current();
    const existing = run.embeddings.get(imageId);
    if (existing) {
      if (urgency === 'now') run.queue.hurry(imageId);
      return existing;
    }
    const promise = run.queue.schedule(imageId, () => run.clicks.then((worker) => this.embed(run, worker, imageId)), urgency);
    run.embeddings.set(imageId, promise);
    promise.catch((error: unknown) => {
      run.embeddings.delete(imageId);
      if (this.run === run) this.ports.status().update({ embedding: { imageId, state: 'error' }, error: messageOf(error) });
    });
    return promise;
  }

  private async embed(run: EngineRun, { api, description }: EngineWorker, imageId: string): Promise<string> {
    const { ports } = this;
    const rgba = plainPixels(ports.pixels(imageId));
    ports.status().update({ embedding: { imageId, state: 'running' } });
    const stored = await ports.stored.load(imageId, description.encoderModel);
    const served = stored || !ports.serverStart() ? undefined : await ports.serverEmbedding(imageId, description.encoderModel);
    let result: { imageKey: string; cacheHit: boolean; timings: { preprocessMs: number; encoderMs: number } };
    if (stored || served) {
      await api.importEmbedding({ image: rgba, imageId, record: (stored ?? served)! });
      if (served) void ports.stored.save(imageId, served);
      result = { imageKey: imageId, cacheHit: Boolean(stored), timings: { preprocessMs: 0, encoderMs: 0 } };
    } else {
      result = await api.embed({ image: rgba, imageId });
      // Kept for later visits; an engine ended meanwhile (a model switch) just keeps nothing.
      if (!result.cacheHit) void api.exportEmbedding({ imageKey: result.imageKey }).then((record) => record && ports.stored.save(imageId, record), () => undefined);
    }
    const s = ports.status();
    s.update({
      embedding: { imageId, state: 'ready' },
      lastEncoder: { ...result.timings, cacheHit: result.cacheHit },
      cacheHits: s.cacheHits + (result.cacheHit ? 1 : 0),
      embeddings: s.embeddings + 1,
      storedEmbeddingsUsed: s.storedEmbeddingsUsed + (stored ? 1 : 0),
      serverEmbeddingsUsed: s.serverEmbeddingsUsed + (served ? 1 : 0),
    });
    run.embedded.add(imageId);
    return result.imageKey;
  }

  /**
   * Embeds the session's photos one after another, `current` first, so switching photos finds its
   * embedding ready (or stored). The others wait in the queue, not in the worker, so a click (and a
   * photo the user switches to) waits at most for the one encoder run under way.
   */
  embedInBackground(current: string | null, imageIds: readonly string[]): void {
    const run = this.current();
    if (current) void this.ensureEmbedding(current, 'now').catch(() => undefined);
    // Server start costs a credit per photo: only the photo the user opens is paid for.
    const others = this.ports.serverStart() ? [] : imageIds.filter((id) => id !== current);
    for (const id of others) {
      if (run.embedded.has(id)) continue;
      void this.ensureEmbedding(id, 'background').catch(() => undefined);
    }
  }

  /**
   * `use` on the photo's embedding in the click worker. The worker's cache holds a few photos and
   * lets the least recently used go: when it no longer has this one, the embedding is made again
   * (from storage, usually) and `use` asked once more, so the user never meets that eviction.
   */
  private async onEmbedding<T>(run: EngineRun, imageId: string, use: (imageKey: string, worker: EngineWorker) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const embedding = this.ensureEmbedding(imageId);
      const imageKey = await embedding;
      try {
        return await use(imageKey, await run.clicks);
      } catch (error) {
        if (attempt > 0 || !isEmbeddingMissing(error)) throw error;
        this.forgetEmbedding(run, imageId, embedding);
      }
    }
  }

  /** The worker no longer holds the photo: the next ask embeds it again (unless someone already did). */
  private forgetEmbedding(run: EngineRun, imageId: string, embedding: Promise<string>): void {
    if (run.embeddings.get(imageId) !== embedding) return;
    run.embeddings.delete(imageId);
    run.embedded.delete(imageId);
    run.mirrorEmbeddings.delete(imageId);
  }

  /**
   * Candidates with their outlines, traced once in the worker at `options.tolerance` (the Detail slider's).
   * `onMask`: the best mask as soon as the decoder answers, before the outlines are traced.
   */
  async predict(imageId: string, prompt: VisualPrompt, options: Partial<SegmentationOptions> & { tolerance: number }, onMask?: (mask: BinaryMask) => void): Promise<LocalCandidate[]> {
    const run = this.current();
    const result = await this.onEmbedding(run, imageId, (imageKey, { api }) => api.predict({ imageKey, prompt, options }, { onEvent: onMask }));
    this.ports.status().update({ lastDecoder: result.timings });
    run.prepared.answered(imageId);
    return localCandidates(result, options.tolerance);
  }

  /**
   * The same decode with mirror averaging (the photo and its mirror image decoded, answers averaged):
   * the studio's mirror pass when the user pauses (mirrorPass.ts), since it costs a second decoder run
   * (and, the first time on a photo, an encoder run) that a click must not wait for.
   */
  async mirrorPass(imageId: string, prompt: VisualPrompt, options: Partial<SegmentationOptions> & { tolerance: number }): Promise<LocalCandidate[]> {
    const run = this.current();
    const imageKey = await this.ensureMirrorEmbedding(run, imageId);
    try {
      const result = await (await run.clicks).api.predict({ imageKey, prompt, options: { ...options, mirrorAverage: true } });
      this.ports.status().update({ lastMirrorPass: result.timings });
      return localCandidates(result, options.tolerance);
    } catch (error) {
      // The worker's cache may have dropped the photo (and its mirror with it): embed both again next time.
      run.mirrorEmbeddings.delete(imageId);
      if (isEmbeddingMissing(error)) {
        const embedding = run.embeddings.get(imageId);
        if (embedding) this.forgetEmbedding(run, imageId, embedding);
      }
      throw error;
    }
  }

  /**
   * The photo's mirror-image embedding beside its own (once per photo), which mirror averaging decodes
   * on: one more encoder run, so it is asked for only when the user first pauses on this photo, and
   * made in the mirror worker; stored like the photo's own, so a later visit skips it.
   */
  private ensureMirrorEmbedding(run: EngineRun, imageId: string): Promise<string> {
    const existing = run.mirrorEmbeddings.get(imageId);
    if (existing) return existing;
    const promise = (async () => {
      const imageKey = await this.ensureEmbedding(imageId);
      const { description } = await run.clicks;
      // Keyed by photo: passes on two photos at once never swap their mirror images (the worker keeps one).
      const key = `mirror:${imageId}`;
      const stored = await this.ports.stored.load(key, description.encoderModel);
      const record = stored ?? (await this.embedMirrorImage(run, imageId, key));
      await (await run.clicks).api.importMirrorEmbedding({ imageKey, record });
      if (stored) {
        const s = this.ports.status();
        s.update({ storedEmbeddingsUsed: s.storedEmbeddingsUsed + 1 });
      }
      return imageKey;
    })();
    run.mirrorEmbeddings.set(imageId, promise);
    promise.catch(() => run.mirrorEmbeddings.delete(imageId));
    return promise;
  }

  /** The mirror image's embedding made by the mirror worker under `key`, and stored. */
  private async embedMirrorImage(run: EngineRun, imageId: string, key: string): Promise<EmbeddingRecord> {
    const rgba = plainPixels(this.ports.pixels(imageId));
    const { api } = await this.backgroundWorker(run);
    await api.embed({ image: mirrorImage(rgba), imageId: key, handOver: true });
    const record = await api.exportEmbedding({ imageKey: key });
    await api.forget({ imageKey: key });
    if (!record) throw new Error('the mirror worker kept no embedding');
    // A copy: handing the record to the click worker moves its buffer there.
    void this.ports.stored.save(key, { ...record, data: record.data.slice() });
    return record;
  }

  /**
   * A second engine worker, on one thread, for work a click must not wait behind: mirror images'
   * embeddings and the detector runs of a photo's descriptors. Its runs take one core while clicks
   * keep the click worker. One that failed to start or crashed starts again when next asked.
   */
  private backgroundWorker(run: EngineRun): Promise<EngineWorker> {
    if (run.background) return run.background;
    const models = this.ports.models();
    // The models are in the Cache API by now (the click worker fetched them): no download to show.
    const background = this.ports.launch({ encoderPrecision: models.encoder, decoderPrecision: models.decoder, ...BACKGROUND_WORKER });
    const forget = () => void (run.background === background && (run.background = undefined));
    background.then((worker) => worker.gone.then(forget), forget);
    run.background = background;
    return background;
  }

  /** Text prompts on a loaded photo, on the embedding the point tools use (the worker's cache). */
  async segmentText(imageId: string, prompts: readonly string[], outline: Partial<OutlineOptions>): Promise<SegmentTextResponse> {
    const run = this.current();
    const rgba = plainPixels(this.ports.pixels(imageId));
    return this.onEmbedding(run, imageId, (imageKey, { api }) => api.segmentText({ image: rgba, prompts: [...prompts], imageId: imageKey, outline }));
  }

  /**
   * Other instances like the example objects (one or more masks) on a photo; the photo goes along so
   * that the engine's exemplar rule can read their class from its detectors (src/engine/text/exemplar.ts).
   */
  async findSimilar(imageId: string, examples: readonly BinaryMask[], outline: Partial<OutlineOptions>, rule?: ExemplarRule): Promise<FindSimilarResponse> {
    const run = this.current();
    const rgba = plainPixels(this.ports.pixels(imageId));
    const [mask, ...moreExamples] = examples.map(plainMask);
    if (!mask) throw new Error('Find similar needs at least one example.');
    return this.onEmbedding(run, imageId, (imageKey, { api }) => api.findSimilar({ imageKey, mask, ...(moreExamples.length ? { moreExamples } : {}), image: rgba, outline, ...(rule ? { rule } : {}) }));
  }

  /**
   * Every object and region of a loaded photo as proposals (the engine's shipped rule), on the
   * embedding the point tools use; `call` carries the progress events and the signal that stops it.
   */
  async segmentEverything(imageId: string, request: EverythingAsk, call?: Call<EverythingEvent>): Promise<SegmentEverythingResponse> {
    const run = this.current();
    const rgba = plainPixels(this.ports.pixels(imageId));
    return this.onEmbedding(run, imageId, (imageKey, { api }) => {
      call?.signal?.throwIfAborted();
      return api.segmentEverything({ ...request, image: rgba, imageId: imageKey }, call);
    });
  }

  /**
   * Region descriptors of masks on a loaded photo (what learned classes learn from and classify), on
   * the embedding the point tools use; the engine runs its detectors once per photo and keeps what
   * they found for the last photos described (engine/learn/photoContexts.ts).
   */
  async describeRegions(imageId: string, masks: readonly BinaryMask[]): Promise<RegionDescriptor[]> {
    if (masks.length === 0) return [];
    const run = this.current();
    const rgba = plainPixels(this.ports.pixels(imageId));
    const answer = await run.prepared.describing(imageId, (detectorRun) => {
      const request = { image: rgba, masks: masks.map(plainMask), ...(detectorRun ? { detectorRun } : {}) };
      return this.onEmbedding(run, imageId, (imageKey, { api }) => api.describeRegions({ ...request, imageId: imageKey }));
    });
    return answer.descriptors;
  }

  /**
   * Makes the photo's detector runs for its descriptors in the background worker, ahead of the
   * person's first decision on it: that decision's describeRegions then runs no detector in the click
   * worker. When they start is PreparedDetectorRuns.prepareAfterAnswer's rule.
   */
  prepareDescriptors(imageId: string): void {
    this.current().prepared.prepareAfterAnswer(imageId, () => this.ensureEmbedding(imageId).then(() => plainPixels(this.ports.pixels(imageId))));
  }

  /**
   * The outlines of masks this page holds, at `outline`, traced in the engine worker. Where no worker
   * was started (Remote mode: masks painted or imported here), the page traces them itself with the
   * same engine function rather than download the model for it.
   */
  async retrace(masks: readonly BinaryMask[], outline: Partial<OutlineOptions>): Promise<PolygonWithHoles[][]> {
    if (masks.length === 0) return [];
    const run = this.run;
    const worker = await run?.clicks.catch(() => null);
    if (!run || !worker) return masks.map((mask) => maskOutline(mask, outline));
    return (await (await run.clicks).api.retrace({ masks: masks.map(plainMask), outline })).polygons;
  }
}

function localCandidates(result: PredictResponse, tolerance: number): LocalCandidate[] {
  return result.candidates.map((c) => ({ ...c, outlineTolerance: tolerance }));
}

/** The pixels as plain data (a canvas's ImageData would travel as one), copied to the worker, not moved. */
function plainPixels(image: RgbaImage | null | undefined): RgbaImage {
  if (!image) throw new Error('The image is not loaded yet.');
  return { width: image.width, height: image.height, data: image.data };
}

function plainMask(mask: BinaryMask): BinaryMask {
  return { width: mask.width, height: mask.height, data: mask.data };
}

/** The engine's EmbeddingMissingError, as it crosses from the worker (matched by name: the page does not load the engine). */
function isEmbeddingMissing(error: unknown): boolean {
  return error instanceof Error && error.name === 'EmbeddingMissingError';
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
