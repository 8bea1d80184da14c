/**
 * The segmentation engine: SAM encoder + prompt decoder behind the runtime seam, with an LRU cache of
 * image embeddings. Runs unchanged in Node (onnxruntime-node) and in a browser worker (onnxruntime-web).
 */
import { bestToken, rankTokens, tokenLogits, type PromptKind, type TokenOutputs } from './candidates';
import type { Choice, DecodeRule, DecodeStep, PhotoView } from './decodeRule';
import { LOW_RES_SIZE, modelFrame, type ModelFrame } from './frame';
import { hashBytes, imageContentKey, imageFingerprint } from './hash';
import { LruCache } from './lru';
import { preprocessImage } from './preprocess';
import { encodePrompt, LABEL_POSITIVE, promptPoints } from './prompt';
import type { BackendInfo, ModelSession, Runtime, Tensor } from './runtime';
import type { MaskCandidate, RgbaImage, VisualPrompt } from './types';
import { maskArea, upsampleLogitsToMask } from './upsample';
import { segmentationOptions, type SegmentationOptions } from './options';
import { meanOf, MIRROR_VIEW } from './mirror';

/** Tensors appended to the decoder's outputs at provisioning time (scripts/onnxMultimask.mjs). */
export const DECODER_MULTIMASK_OUTPUTS = {
  lowResLogits: '/Reshape_9_output_0',
  iouPredictions: '/iou_prediction_head/layers.2/Gemm_output_0',
} as const;
/** The decoder export's own single-mask outputs, used when the multi-mask outputs are absent. */
export const DECODER_SINGLE_OUTPUTS = { lowResLogits: 'low_res_masks', iouPredictions: 'iou_predictions' } as const;

export const DEFAULT_EMBEDDING_CACHE_SIZE = 8;

/**
 * A second-level store of image embeddings behind the in-memory LRU, keyed by the image's pixel
 * content (`imageContentKey`). The store itself must tell models apart (e.g. by the encoder file's
 * hash). Used by tools that see the same photos again and again (eval, bench); the product needs none.
 */
export interface EmbeddingStore {
  load(contentKey: string): Promise<Tensor | undefined>;
  save(contentKey: string, embedding: Tensor): Promise<void>;
}

export class EmbeddingMissingError extends Error {
  override name = 'EmbeddingMissingError';
  constructor(readonly imageKey: string) {
    super(`no embedding for image "${imageKey}": call embed() first (it may have been evicted from the cache)`);
  }
}

interface CachedEmbedding {
  readonly embedding: Tensor;
  readonly frame: ModelFrame;
  /** Sampled-pixel fingerprint: catches an imageId reused for a different picture of the same size. */
  readonly fingerprint: string;
  /**
   * The embeddings of the photo's other views, by view name, once `embed` computed them: the mirror
   * image (`mirrored: true`, mirror averaging) and any a decoding rule brings (`views`).
   */
  readonly views: Map<string, Tensor>;
}

/** What one prediction decodes on: the photo's embedding and those of the views averaged with it, in order. */
interface DecodeSource {
  readonly embedding: Tensor;
  readonly frame: ModelFrame;
  readonly views: readonly { readonly view: PhotoView; readonly embedding: Tensor }[];
}

const now = (): number => performance.now();

/** 'photo', or the name of a view embedded beside it ('mirror', or a decoding rule's). */
export type EmbeddingView = string;

export interface EmbedResult {
  imageKey: string;
  cacheHit: boolean;
  timings: { preprocessMs: number; encoderMs: number };
}

/**
 * The options that decide how a prompt becomes masks (the rest of SegmentationOptions shape polygons),
 * and a decoding rule the product does not ship, plugged in by tools that measure one (decodeRule.ts).
 */
export type PredictOptions = Partial<Pick<SegmentationOptions, 'multimask' | 'mirrorAverage'>> & { readonly rule?: DecodeRule };

export interface PredictResult {
  candidates: MaskCandidate[];
  timings: { decoderMs: number; postprocessMs: number };
}

export class SegmentationEngine {
  private readonly cache: LruCache<string, CachedEmbedding>;
  /**
   * Embeddings of parts of a photo (segment everything's tiles), held outside the LRU until forgotten:
   * in the LRU, a tile would evict the very photo it belongs to from a small cache.
   */
  private readonly scratch = new Map<string, CachedEmbedding>();
  /** Encoder runs in flight, so concurrent requests for one image share a single run. */
  private readonly pending = new Map<string, Promise<void>>();
  /** Encoder runs of a photo's other views (mirror image, a rule's views) in flight, by its cache entry. */
  private readonly pendingViews = new Map<CachedEmbedding, Promise<void>>();
  private readonly decoderOutputs: { lowResLogits: string; iouPredictions: string };
  /** The split decoder's precompute outputs, by the embedding they were computed from. */
  private readonly precomputed = new WeakMap<Tensor, Promise<Record<string, Tensor>>>();
  /**
   * The last few decodes of each view (keyed by its embedding), so a pass that decodes a prompt again
   * with other views beside it (the studio's mirror pass, after the click's quick answer and any
   * hover decodes in between) runs the decoder only for the views it adds.
   */
  private readonly recentDecodes = new WeakMap<Tensor, { prompt: string; outputs: TokenOutputs }[]>();

  private constructor(
    private readonly runtime: Runtime,
    private readonly encoder: ModelSession,
    private readonly decoder: ModelSession,
    embeddingCacheSize: number,
    private readonly store?: EmbeddingStore,
    /** When set, `decoder` is the per-click half of a split decoder (scripts/onnxDecoderSplit.mjs). */
    private readonly decoderPrecompute?: ModelSession,
  ) {
    this.cache = new LruCache(embeddingCacheSize);
    const names = new Set(decoder.outputNames);
    this.decoderOutputs =
      names.has(DECODER_MULTIMASK_OUTPUTS.lowResLogits) && names.has(DECODER_MULTIMASK_OUTPUTS.iouPredictions)
        ? DECODER_MULTIMASK_OUTPUTS
        : DECODER_SINGLE_OUTPUTS;
  }

  /**
   * `decoderPrecompute` with `decoder`: a split decoder — the precompute model runs once per image
   * (its outputs are cached beside the embedding) and `decoder` is the per-click model that takes them.
   */
  static async create(
    runtime: Runtime,
    models: { encoder: string | Uint8Array; decoder: string | Uint8Array; decoderPrecompute?: string | Uint8Array },
    options: {
      embeddingCacheSize?: number;
      embeddingStore?: EmbeddingStore;
    } = {},
  ): Promise<SegmentationEngine> {
    const encoder = await runtime.createSession('encoder', models.encoder);
    const decoder = await runtime.createSession('decoder', models.decoder);
    const decoderPrecompute = models.decoderPrecompute ? await runtime.createSession('decoder-precompute', models.decoderPrecompute) : undefined;
    return new SegmentationEngine(
      runtime,
      encoder,
      decoder,
      options.embeddingCacheSize ?? DEFAULT_EMBEDDING_CACHE_SIZE,
      options.embeddingStore,
      decoderPrecompute,
    );
  }

  get backend(): BackendInfo {
    return this.runtime.backend;
  }

  /** False when the decoder lacks the provisioned multi-mask outputs (then one candidate per prompt). */
  get multimaskAvailable(): boolean {
    return this.decoderOutputs === DECODER_MULTIMASK_OUTPUTS;
  }

  /**
   * Computes (or finds cached) the photo's embedding; with `mirrored`, its mirror image's too, which
   * `mirrorAverage` decodes beside it, and with `views` those of a decoding rule's views (the timings
   * then add every encoder run).
   */
  async embed(
    image: RgbaImage,
    imageId?: string,
    options: { mirrored?: boolean; views?: readonly PhotoView[] } = {},
  ): Promise<EmbedResult> {
    const own = await this.embedOne(image, imageId);
    const entry = this.cache.peek(own.imageKey);
    if (!entry) return own;
    // Concurrent requests for one photo's other views share their encoder runs, as for the photo.
    for (let inFlight = this.pendingViews.get(entry); inFlight; inFlight = this.pendingViews.get(entry)) await inFlight;
    const wanted = [...(options.mirrored ? [MIRROR_VIEW] : []), ...(options.views ?? [])].filter(
      (view, i, all) => !entry.views.has(view.name) && all.findIndex((v) => v.name === view.name) === i,
    );
    if (wanted.length === 0) return own;
    const timings = { preprocessMs: 0, encoderMs: 0 };
    const run = (async () => {
      // Kept inside the photo's own entry, so they are evicted together and never found apart.
      for (const view of wanted) {
        const picture = view.picture ? view.picture(image) : image;
        const embedding = await this.computeEmbedding(picture, this.store && view.storeKey(image, picture), timings, view.frame);
        await this.precomputedFor(embedding);
        entry.views.set(view.name, embedding);
      }
    })();
    this.pendingViews.set(entry, run);
    try {
      await run;
    } finally {
      this.pendingViews.delete(entry);
    }
    return {
      imageKey: own.imageKey,
      cacheHit: false,
      timings: {
        preprocessMs: own.timings.preprocessMs + timings.preprocessMs,
        encoderMs: own.timings.encoderMs + timings.encoderMs,
      },
    };
  }

  /**
   * Embeds a part of a photo under `key`, beside the LRU rather than in it: nothing cached is evicted
   * for it, and it stays until `forget(key)`, which the caller owes (segment everything's tiles).
   */
  async embedScratch(picture: RgbaImage, key: string): Promise<EmbedResult> {
    const fingerprint = imageFingerprint(picture);
    if (this.scratch.get(key)?.fingerprint === fingerprint) return { imageKey: key, cacheHit: true, timings: { preprocessMs: 0, encoderMs: 0 } };
    const timings = { preprocessMs: 0, encoderMs: 0 };
    const embedding = await this.computeEmbedding(picture, this.store && imageContentKey(picture), timings);
    await this.precomputedFor(embedding);
    this.scratch.set(key, { embedding, frame: modelFrame(picture.width, picture.height), fingerprint, views: new Map() });
    return { imageKey: key, cacheHit: false, timings };
  }

  /** A cached photo's entry or a scratch one; `use` counts as a use of the photo (refreshes its recency). */
  private entryOf(key: string, use: boolean): CachedEmbedding | undefined {
    return this.scratch.get(key) ?? (use ? this.cache.get(key) : this.cache.peek(key));
  }

  private async embedOne(image: RgbaImage, imageId?: string): Promise<EmbedResult> {
    const imageKey = imageId ?? imageContentKey(image);
    // An id reused for another image is a client mistake; recompute rather than mis-segment. With a
    // content-hash key the fingerprint always matches, so this costs one cheap sample.
    const fingerprint = imageFingerprint(image);
    for (;;) {
      if (this.cache.get(imageKey)?.fingerprint === fingerprint) {
        return { imageKey, cacheHit: true, timings: { preprocessMs: 0, encoderMs: 0 } };
      }
      // Concurrent requests for one key share the encoder run in flight, then look again.
      const inFlight = this.pending.get(imageKey);
      if (!inFlight) break;
      await inFlight.catch(() => undefined);
    }
    const timings = { preprocessMs: 0, encoderMs: 0 };
    const run = (async () => {
      const contentKey = this.store && (imageId === undefined ? imageKey : imageContentKey(image));
      const embedding = await this.computeEmbedding(image, contentKey, timings);
      // Part of making the image ready, so the first click does not pay for it.
      await this.precomputedFor(embedding);
      this.cache.set(imageKey, { embedding, frame: modelFrame(image.width, image.height), fingerprint, views: new Map() });
    })();
    this.pending.set(imageKey, run);
    try {
      await run;
    } finally {
      this.pending.delete(imageKey);
    }
    return { imageKey, cacheHit: false, timings };
  }

  /** The encoder's output for `image`, from the store when it has it (then `timings` stay 0). */
  private async computeEmbedding(
    image: RgbaImage,
    contentKey: string | undefined,
    timings: { preprocessMs: number; encoderMs: number },
    /** Applied to the preprocessed frame before the encoder (a view of the photo). */
    view?: (frame: Tensor) => Tensor,
  ): Promise<Tensor> {
    const stored = contentKey ? await this.store?.load(contentKey) : undefined;
    if (stored) return stored;
    const t0 = now();
    const preprocessed = preprocessImage(image).tensor;
    const tensor = view ? view(preprocessed) : preprocessed;
    const t1 = now();
    const outputs = await this.encoder.run({ [this.encoder.inputNames[0]]: tensor });
    const embedding = outputs[this.encoder.outputNames[0]];
    timings.preprocessMs += t1 - t0;
    timings.encoderMs += now() - t1;
    if (contentKey) await this.store?.save(contentKey, embedding);
    return embedding;
  }

  hasEmbedding(imageKey: string): boolean {
    return this.scratch.has(imageKey) || this.cache.has(imageKey);
  }

  /** The photos whose embeddings are cached, least recently used first, each with the views kept beside it. */
  cachedViews(): { imageKey: string; views: EmbeddingView[] }[] {
    return this.cache.keys().map((imageKey) => {
      const entry = this.cache.peek(imageKey)!;
      return { imageKey, views: ['photo', ...entry.views.keys()] };
    });
  }

  getEmbedding(imageKey: string): { embedding: Tensor; width: number; height: number } | undefined {
    const entry = this.entryOf(imageKey, false);
    return entry && { embedding: entry.embedding, width: entry.frame.width, height: entry.frame.height };
  }

  /**
   * Takes an embedding computed elsewhere (a server, an earlier session's stored copy) for `image`,
   * so its clicks decode without an encoder run. The caller vouches that it came from this engine's
   * encoder variant (the model identity travels with stored and served embeddings).
   */
  adoptEmbedding(image: RgbaImage, imageKey: string, embedding: Tensor): void {
    this.cache.set(imageKey, {
      embedding,
      frame: modelFrame(image.width, image.height),
      fingerprint: imageFingerprint(image),
      views: new Map(),
    });
    // Started now, awaited by the first decode; a failure surfaces there (and is retried).
    this.precomputedFor(embedding).catch(() => undefined);
  }

  /**
   * Takes the mirror image's embedding, computed elsewhere (another worker, so no click waits behind
   * its encoder run), for the photo cached under `imageKey`; same vouching as `adoptEmbedding`.
   */
  async adoptMirrorEmbedding(imageKey: string, embedding: Tensor): Promise<void> {
    const entry = this.cache.peek(imageKey);
    if (!entry) throw new EmbeddingMissingError(imageKey);
    await this.precomputedFor(embedding);
    entry.views.set(MIRROR_VIEW.name, embedding);
  }

  /**
   * The split decoder's per-image tensors for an embedding, computed on first need and kept beside it
   * (weakly: they go when the embedding leaves the cache). Keyed by the tensor, so a photo's mirror
   * image (mirror averaging) has its own.
   */
  private precomputedFor(embedding: Tensor): Promise<Record<string, Tensor>> {
    if (!this.decoderPrecompute) return Promise.resolve({});
    let found = this.precomputed.get(embedding);
    if (!found) {
      const session = this.decoderPrecompute;
      found = session.run({ [session.inputNames[0]]: embedding });
      this.precomputed.set(embedding, found);
      found.catch(() => this.precomputed.delete(embedding));
    }
    return found;
  }

  /**
   * Runs the decoder and the JS after it `runs` times on a blank embedding, so V8 has optimised that
   * code before the first real click (the first runs after load are several times slower), without
   * paying an encoder run. Meant for right after load: it borrows one cache slot while it runs.
   */
  async warmUpDecoder(runs: number, embeddingDims: readonly number[] = [1, 256, 64, 64]): Promise<void> {
    const key = '__maskwright-decoder-warm-up__';
    const size = 64;
    const blank = { width: size, height: size, data: new Uint8Array(size * size * 4) };
    const count = embeddingDims.reduce((a, b) => a * b, 1);
    this.adoptEmbedding(blank, key, { data: new Float32Array(count), dims: embeddingDims });
    try {
      for (let i = 0; i < runs; i++) {
        await this.predict(key, { points: [{ x: (i * 13) % size, y: (i * 29) % size }] }, { multimask: true, mirrorAverage: false });
      }
    } finally {
      this.cache.delete(key);
    }
  }

  /** Drops one embedding (or all), e.g. when an image is closed. */
  forget(imageKey?: string): void {
    if (imageKey === undefined) {
      this.cache.clear();
      this.scratch.clear();
    } else {
      this.cache.delete(imageKey);
      this.scratch.delete(imageKey);
    }
  }

  /**
   * Decodes a prompt into mask candidates, best first (options left out: DEFAULT_SEGMENTATION_OPTIONS):
   * SAM's answer (candidates.ts), averaged with the mirror image's under `mirrorAverage`. A decoding
   * rule (`options.rule`, decodeRule.ts) may add views, change the prompt, decode again, change the
   * choice and make the masks; the product ships none.
   */
  async predict(imageKey: string, prompt: VisualPrompt, options: PredictOptions = {}): Promise<PredictResult> {
    const own = this.entryOf(imageKey, true);
    if (!own) throw new EmbeddingMissingError(imageKey);
    const { multimask, mirrorAverage } = segmentationOptions(options);
    const rule: DecodeRule = options.rule ?? {};
    const source = this.decodeSource(imageKey, own, [...(mirrorAverage ? [MIRROR_VIEW] : []), ...(rule.views ?? [])]);
    const { frame } = own;
    const timings = { decoderMs: 0, postprocessMs: 0 };
    const step: DecodeStep = {
      asked: prompt,
      prompt: rule.preparePrompt ? rule.preparePrompt(prompt, frame) : prompt,
      frame,
      multimaskAvailable: this.multimaskAvailable,
      decode: async (decoding) => ({ outputs: await this.decode(source, decoding, timings), kind: this.promptKind(decoding, frame) }),
    };
    let decoded = await step.decode(step.prompt);
    if (rule.redecode) decoded = await rule.redecode(decoded, step);
    const t1 = now();
    const decoderBefore = timings.decoderMs;
    let chosen: Choice = { ...decoded, token: bestToken(decoded.outputs, frame, decoded.kind) };
    if (rule.correct) chosen = await rule.correct(chosen, step);

    const order = multimask ? rankTokens(chosen.outputs, frame, chosen.kind, true, chosen.token) : [chosen.token];
    const candidates: MaskCandidate[] = [];
    for (const token of order) {
      // Copy: callers keep (and may change) these for mask feedback; the decode itself is kept too.
      const lowResLogits = token === chosen.token && chosen.logits ? chosen.logits : tokenLogits(chosen.outputs, token).slice();
      const mask = rule.toMask ? rule.toMask(lowResLogits, frame, imageKey) : upsampleLogitsToMask(lowResLogits, frame);
      const maskPixels = maskArea(mask);
      if (maskPixels === 0) continue;
      const score = Math.min(1, Math.max(0, chosen.outputs.iou[token]));
      candidates.push({ mask, score, lowResLogits, area: maskPixels, token });
    }
    // A rule's extra decodes after the first answer are decoder time, not postprocessing.
    timings.postprocessMs += now() - t1 - (timings.decoderMs - decoderBefore);
    return { candidates, timings };
  }

  /** The photo's embedding and those of `views` (each must have been embedded: the error says how). */
  private decodeSource(imageKey: string, own: CachedEmbedding, views: readonly PhotoView[]): DecodeSource {
    return {
      embedding: own.embedding,
      frame: own.frame,
      views: views.map((view) => {
        const embedding = own.views.get(view.name);
        if (embedding) return { view, embedding };
        if (view === MIRROR_VIEW) {
          throw new Error(`mirror averaging needs the mirror image's embedding: embed "${imageKey}" with { mirrored: true } first`);
        }
        throw new Error(`the view "${view.name}" needs its own embedding: embed "${imageKey}" with { views: [that view] } first`);
      }),
    };
  }

  private promptKind(prompt: VisualPrompt, frame: ModelFrame): PromptKind {
    const points = promptPoints(prompt, frame.width, frame.height);
    const clicks = prompt.points?.length ?? 0;
    return {
      ambiguous: !prompt.box && !prompt.maskInput && points.length === 1 && points[0].label === LABEL_POSITIVE,
      unstableFallback: clicks <= 2,
    };
  }

  private async decode(source: DecodeSource, prompt: VisualPrompt, timings: { decoderMs: number }): Promise<TokenOutputs> {
    const own = await this.decodeOne(source, prompt, timings);
    if (source.views.length === 0) return own;
    const { frame } = source;
    const answers: { logits: Float32Array; iou: Float32Array }[] = [{ logits: own.logits, iou: own.iou }];
    for (const { view, embedding } of source.views) {
      const seen = await this.decodeOne({ embedding, frame }, view.prompt(prompt, frame), timings);
      answers.push({ logits: view.logitsBack(seen.logits, own.logits, frame), iou: seen.iou });
    }
    return { tokens: own.tokens, logits: meanOf(answers.map((a) => a.logits)), iou: meanOf(answers.map((a) => a.iou)) };
  }

  private async decodeOne(entry: Pick<DecodeSource, 'embedding' | 'frame'>, prompt: VisualPrompt, timings: { decoderMs: number }): Promise<TokenOutputs> {
    const key = promptKey(prompt);
    const recent = this.recentDecodes.get(entry.embedding) ?? [];
    const known = recent.find((d) => d.prompt === key);
    if (known) return known.outputs;
    const feeds = encodePrompt(prompt, entry.frame);
    const t0 = now();
    const precomputed = await this.precomputedFor(entry.embedding);
    const outputs = await this.decoder.run({ image_embeddings: entry.embedding, ...feeds, ...precomputed }, [
      this.decoderOutputs.lowResLogits,
      this.decoderOutputs.iouPredictions,
    ]);
    timings.decoderMs += now() - t0;
    const logits = outputs[this.decoderOutputs.lowResLogits];
    const iou = outputs[this.decoderOutputs.iouPredictions];
    // Copies: the runtime may reuse its output buffers on the next run, and this answer is kept.
    const tokens: TokenOutputs = { logits: logits.data.slice(), iou: iou.data.slice(), tokens: iou.data.length };
    if (logits.data.length !== tokens.tokens * LOW_RES_SIZE * LOW_RES_SIZE) {
      throw new Error(`decoder returned logits of shape [${logits.dims.join(', ')}] for ${tokens.tokens} IoU predictions`);
    }
    this.recentDecodes.set(entry.embedding, [{ prompt: key, outputs: tokens }, ...recent.slice(0, RECENT_DECODES_PER_VIEW - 1)]);
    return tokens;
  }

  /** Decoder runs that make progress side by side: how far ahead a caller with many prompts may ask. */
  get decodeConcurrency(): number {
    return this.decoder.concurrency ?? 1;
  }

  /**
   * The decoder's mask tokens for one prompt on the photo alone (one look, no candidate chosen, nothing
   * upsampled): what segment-everything filters by predicted IoU and stability before it pays for
   * full-size masks of the few it keeps.
   */
  async decodeTokens(imageKey: string, prompt: VisualPrompt): Promise<{ outputs: TokenOutputs; frame: ModelFrame }> {
    const own = this.entryOf(imageKey, true);
    if (!own) throw new EmbeddingMissingError(imageKey);
    const outputs = await this.decodeOne({ embedding: own.embedding, frame: own.frame }, prompt, { decoderMs: 0 });
    return { outputs, frame: own.frame };
  }

  async release(): Promise<void> {
    this.forget();
    await Promise.all([this.encoder.release(), this.decoder.release(), this.decoderPrecompute?.release()]);
  }
}

/** A click, the hover decodes that may follow it before the user pauses, and one more. */
const RECENT_DECODES_PER_VIEW = 4;

/** Everything a decode depends on besides the embedding, as a string (the fed-back mask as a hash). */
function promptKey(prompt: VisualPrompt): string {
  const mask = prompt.maskInput;
  const maskKey = mask ? hashBytes(new Uint8Array(mask.buffer, mask.byteOffset, mask.byteLength)) : '';
  return JSON.stringify([prompt.points ?? [], prompt.box ?? null, maskKey]);
}
