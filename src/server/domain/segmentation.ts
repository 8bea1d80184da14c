/**
 * The metered endpoints as domain calls: `call(endpoint, who, body)` in, MeteredOutcome out — the
 * one entry point the HTTP layer uses. Each endpoint says how its work is prepared and judged
 * (`MeteredCall`); the runner (metered/runner.ts) takes it through the phases, paid by credits or
 * by an x402 payment. `prepare` runs before anything is claimed or charged: the image must be
 * Base64 of a file whose header passes the image check (else 400), and a worker slot must be free
 * (else 503). The work itself is EngineApi calls on a worker's engine (engineJobs.ts), the photo
 * decoded here when a step needs its pixels; a file that passes the header check but cannot be
 * decoded (truncated, corrupt) fails then, after the charge, and is refunded and answered 400.
 */
import { createHash } from 'node:crypto';
import { EverythingResponse, PvsResponse, SegmentResponse, type EverythingRequest, type PvsRequest, type SegmentRequest } from '../../contract/segmentation';
import { isConsistentEmbedding, type EmbeddingRequest, type EmbeddingResponse, type EncoderIdentity } from '../../contract/embeddings';
import { PRICING_KEYS, type Prices } from './pricing';
import type { EngineJob, InferenceBackend, InferenceSlot } from '../inference/pool';
import type { RegionDescriptor } from '../../engine/learn/descriptors';
import type { BinaryMask } from '../../engine/types';
import { DecodedPhotos } from './decodedPhotos';
import { BULK_EVERYTHING_RULE, type EverythingRule } from '../../engine/everything/segmentEverything';
import { describeRegionsJob, embeddingJob, everythingJob, learnedJob, pvsJob, segmentJob, type JobPhoto } from './engineJobs';
import { DomainError } from './errors';
import { decodeImageField, KnownImages, readUpload, RecentFields, type ImageField, type ImageMemo, type ImageSize, type Upload, type WithImageField } from './imageField';
import { checkPromptsInside } from './promptBounds';
import { checkImageLargeEnough, checkPromptsNotDegenerate } from './degeneratePrompts';
import { timed, timedSync, type Timings } from './timings';
import { UpstreamError, type UpstreamTextSegmenter } from '../../engine/text/upstream';
import type { LearnedClassesState } from '../../engine/learn/learnedClasses';
import { LearnedProposals } from '../../contract/learned';
import type { Credits } from './metered/credits';
import type { MeteredCall, MeteredCalls, MeteredOutcome, PaymentMethod, PreparedWork } from './metered/runner';
import type { PaymentContext, X402Payments } from './metered/x402';

/**
 * The embedding-cache key of an image: its content digest (SHA-256 of the decoded file), computed
 * here from the bytes. Never a name the client chose: an imageId only picks which kept copy of the
 * field to compare bytes with (RecentFields), so no account can plant an embedding that another
 * account's photo would find, and a different photo under a known imageId is simply another key.
 */
export function contentKey(digest: string): string {
  return `sha256:${digest.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}`;
}

/**
 * The names a job gives the worker's caches (decoded pixels, embedding): the content digest in
 * the payer's scope (an account, or an x402 payer address). A photo another account sent is not
 * a hit, so neither the answer nor its timing tells one account what another sent; the price is
 * one decode and one encoder run per (account, photo) instead of per photo, and a copy of the
 * pixels and embedding per account that sends the photo.
 */
export function privateCacheKeys(scope: string, digest: string): { imageDigest: string; cacheKey: string } {
  const tag = createHash('sha256').update(scope).digest('base64url').slice(0, 22);
  return { imageDigest: `${digest}@${tag}`, cacheKey: `${contentKey(digest)}@${tag}` };
}

/** What one image of an auto-label job asks the engine for. */
export type AutoLabelWork =
  | { kind: 'everything' }
  | { kind: 'text'; prompts: readonly string[] }
  | { kind: 'learned'; model: LearnedClassesState; classNames: Record<string, string> };

export interface CallContext {
  /** Filled in as the call proceeds (ms): reported in the Server-Timing header. */
  timings?: Record<string, number>;
  accountId: string;
  /** The account's balance as read at authentication, when it was (see Credits.method). */
  balanceHint?: number;
  requestId: string;
  method: string;
  path: string;
  idempotencyKey?: string;
  /** Digest of the request's bytes (keyed credit calls): a byte-identical retry is answered before its body is read. */
  bodyDigest?: string;
  forceRefresh: boolean;
  /** Paid per request (x402) instead of credits; then `accountId` is empty. */
  payment?: PaymentContext;
}

/** The metered endpoints and their validated requests. */
export interface MeteredRequests {
  pvs: WithImageField<PvsRequest>;
  segment: WithImageField<SegmentRequest>;
  everything: WithImageField<EverythingRequest>;
  embeddings: WithImageField<EmbeddingRequest>;
}
export type MeteredEndpoint = keyof MeteredRequests;

export const DEFAULT_BUSY_RETRY_AFTER_SECONDS = 2;

export interface SegmentationOptions {
  /** Retry-After for 503 service-busy. */
  busyRetryAfterSeconds: number;
  /** The header check of an image seen for the first time (inference/imageCheck.ts): a 400 before any charge; answers its size as displayed. */
  checkImage: (bytes: Uint8Array) => Promise<ImageSize>;
  /**
   * TEXT_UPSTREAM_URL: text prompts go to a SAM-3-class server instead of the local detector
   * pipeline. Its failures are engine failures for billing: refunded against the charge.
   */
  textUpstream?: { segmenter: UpstreamTextSegmenter; maxInFlight: number };
  /** Credits per call by pricing key. */
  prices: Prices;
}

export class Segmentation {
  constructor(
    private readonly runner: MeteredCalls,
    private readonly credits: Credits,
    private readonly backend: InferenceBackend,
    private readonly options: SegmentationOptions,
    /** Present when per-request payment (x402) is configured. */
    private readonly x402?: X402Payments,
  ) {}

  /** Calls to the text upstream in flight: bounded like the worker queue, so a slow upstream means 503, not a pile-up. */
  private upstreamInFlight = 0;

  /** Images already checked here, per account: not checked again, and their jobs name them by digest only. */
  private readonly knownImages = new KnownImages();

  /** Decoded pixels of recent photos, per payer (privateCacheKeys), for every worker. */
  private readonly decodedPhotos = new DecodedPhotos();

  /**
   * The account's memo of checked fields. An x402 call has none: its payer is verified only after
   * the upload is read, and an unverified payer name must not open another payer's memo.
   */
  private memo(ctx: CallContext): ImageMemo | undefined {
    return ctx.accountId ? this.knownImages.scoped(ctx.accountId) : undefined;
  }
  /** The last image sent under each account's imageId: recognised by its bytes, not hashed again. */
  private readonly recentFields = new RecentFields();

  /**
   * One metered call. `readBody` gives the validated request; it is not called when a byte-identical
   * keyed retry (ctx.bodyDigest) is answered from storage.
   */
  async call<E extends MeteredEndpoint>(endpoint: E, ctx: CallContext, readBody: () => MeteredRequests[E]): Promise<MeteredOutcome> {
    if (ctx.bodyDigest && ctx.idempotencyKey && !ctx.payment && ctx.accountId) {
      const stored = await this.credits.decideByDigest(ctx.accountId, ctx.idempotencyKey, ctx.bodyDigest);
      if (stored) return this.runner.answer(stored);
    }
    const body = readBody();
    const call =
      endpoint === 'pvs'
        ? this.pvs(ctx, body as MeteredRequests['pvs'])
        : endpoint === 'segment'
          ? this.segment(ctx, body as MeteredRequests['segment'])
          : endpoint === 'everything'
            ? this.everything(ctx, body as MeteredRequests['everything'])
            : await this.embeddings(ctx, body as MeteredRequests['embeddings']);
    return this.runner.run(call as MeteredCall<unknown>, this.payer(ctx));
  }

  /**
   * One image of an auto-label job (issue 38): segment everything, or the job's text prompts, paid
   * with the job starter's credits under the pricing key `service:auto-label`, through the same
   * runner as every metered call (idempotency key, refund of an empty or failed answer, refund
   * budget, fair queue). `ctx.idempotencyKey` names the (job, image): run again, it is a replay.
   */
  async autoLabel(work: AutoLabelWork, ctx: CallContext, image: Uint8Array): Promise<MeteredOutcome> {
    const field = Buffer.from(image).toString('base64');
    const call =
      work.kind === 'everything'
        ? this.everything(ctx, { image: field } as MeteredRequests['everything'], BULK_EVERYTHING_RULE)
        : work.kind === 'text'
          ? this.segment(ctx, { image: field, prompts: [...work.prompts] } as MeteredRequests['segment'])
          : this.learned(ctx, field, work);
    const priced = { ...call, endpoint: 'auto-label', price: this.options.prices[PRICING_KEYS.autoLabel] } as MeteredCall<unknown>;
    return this.runner.run(priced, this.credits.method(ctx.accountId));
  }

  /**
   * A `learned` job's image: the project's learned classes on it (engineJobs.ts `learnedJob`).
   * The fingerprint is the image alone: a retry of the (job, image) after the model moved on is
   * still that call, replayed, not a second one.
   */
  private learned(ctx: CallContext, field: string, work: Extract<AutoLabelWork, { kind: 'learned' }>): MeteredCall<LearnedProposals> {
    const known = this.memo(ctx);
    const upload = readUpload(field, known);
    return {
      ...ctx,
      endpoint: 'learned',
      price: this.options.prices[PRICING_KEYS.autoLabel],
      body: { kind: 'learned', image: { sha256: upload.digest } },
      prepare: (scope) =>
        this.prepare(field, upload, { known, scope }, async (slot, photo) => {
          return runJob(slot, learnedJob(photo, work.model, work.classNames, ctx.timings), ctx.timings);
        }),
      isEmpty: (r) => !hasPolygon(r.predictions),
      isValid: (r) => LearnedProposals.safeParse(r).success,
    };
  }

  /** Credits, or for a request carrying an x402 payment, that payment. */
  private payer(ctx: CallContext): PaymentMethod {
    if (!ctx.payment) return this.credits.method(ctx.accountId, ctx.balanceHint);
    if (!this.x402) throw new Error('an x402 payment reached a server without x402 configured');
    return this.x402.method(ctx.payment);
  }

  private pvs(ctx: CallContext, request: WithImageField<PvsRequest>): MeteredCall<PvsResponse> {
    checkPromptsNotDegenerate(request);
    // Only for accounts: the name picks which remembered field to compare with (the comparison
    // itself is what makes a hit safe), and an x402 call's payer is not known yet.
    const recent = request.imageId && ctx.accountId ? { fields: this.recentFields, name: `${ctx.accountId}\u0000${request.imageId}` } : undefined;
    const known = this.memo(ctx);
    const upload = timedSync(ctx.timings, 'upload', () => readUpload(request.image, known, recent));
    return {
      ...ctx,
      endpoint: 'pvs',
      price: this.options.prices[PRICING_KEYS.pvs],
      body: fingerprintBody(request, upload),
      prepare: (scope) =>
        this.prepare(
          request.image,
          upload,
          { known, scope },
          async (slot, photo) => {
            const { points, box, multimaskOutput, mirrorAverage } = request;
            const options = { multimask: multimaskOutput, mirrorAverage };
            const response = await runJob(slot, pvsJob(photo, { points, box, options }, ctx.timings), ctx.timings);
            // The engine names the image by its private cache key; the caller gets its own name or the content key.
            return { ...response, imageId: request.imageId ?? contentKey(upload.digest) };
          },
          (size) => checkPromptsInside(request, size),
        ),
      isEmpty: (r) => !r.prompts.some((p) => hasPolygon(p.predictions)),
      // zod 4's z.number() refuses NaN and ±Infinity, so the schema also keeps coordinates finite.
      isValid: (r) => PvsResponse.safeParse(r).success,
    };
  }

  private segment(ctx: CallContext, request: WithImageField<SegmentRequest>): MeteredCall<SegmentResponse> {
    const upstream = this.options.textUpstream;
    const known = this.memo(ctx);
    const upload = timedSync(ctx.timings, 'upload', () => readUpload(request.image, known));
    return {
      ...ctx,
      endpoint: 'segment',
      price: this.options.prices[PRICING_KEYS.segment],
      body: fingerprintBody(request, upload),
      prepare: (scope) =>
        upstream ? this.prepareUpstream(request, upload, known, upstream, ctx.timings) : this.prepare(request.image, upload, { known, scope }, (slot, photo) => {
          return runJob(slot, segmentJob(photo, request.prompts, ctx.timings), ctx.timings);
        }),
      isEmpty: (r) => !r.prompt_results.some((p) => hasPolygon(p.predictions)),
      isValid: (r) =>
        SegmentResponse.safeParse(r).success &&
        r.prompt_results.length === request.prompts.length &&
        r.prompt_results.every((p, i) => p.echo.text === request.prompts[i]),
    };
  }

  /** Segment everything on the photo: priced apart, otherwise metered as /segment is (an empty answer is refunded). */
  private everything(ctx: CallContext, request: WithImageField<EverythingRequest>, rule?: EverythingRule): MeteredCall<EverythingResponse> {
    const known = this.memo(ctx);
    const upload = timedSync(ctx.timings, 'upload', () => readUpload(request.image, known));
    return {
      ...ctx,
      endpoint: 'everything',
      price: this.options.prices[PRICING_KEYS.everything],
      body: fingerprintBody(request, upload),
      prepare: (scope) =>
        this.prepare(request.image, upload, { known, scope }, (slot, photo) => {
          return runJob(slot, everythingJob(photo, ctx.timings, rule), ctx.timings);
        }),
      isEmpty: (r) => !hasPolygon(r.predictions),
      isValid: (r) => EverythingResponse.safeParse(r).success,
    };
  }

  /**
   * The image embedding of a photo, computed here so that the caller decodes its clicks locally.
   * Keyed by the photo's content and the encoder: the same photo again from the same account is a
   * replay (free), whatever Idempotency-Key it carries; another account's request is its own call.
   * Bad input and a model the caller cannot use are refused before any key or credit is touched.
   */
  private async embeddings(ctx: CallContext, request: WithImageField<EmbeddingRequest>): Promise<MeteredCall<EmbeddingResponse>> {
    const known = this.memo(ctx);
    const upload = timedSync(ctx.timings, 'upload', () => readUpload(request.image, known));
    if (upload.error) throw upload.error;
    const encoder = await this.servedEncoder();
    if (request.model !== undefined && request.model !== encoder.id) {
      throw new DomainError('model-mismatch', `this server runs ${encoder.id}; the request asked for ${request.model}`);
    }
    const imageId = contentKey(upload.digest);
    return {
      ...ctx,
      endpoint: 'embeddings',
      price: this.options.prices[PRICING_KEYS.embeddings],
      contentKey: `${encoder.id} ${imageId}`,
      // The content alone: whether the caller named the model changes nothing about the answer.
      body: { image: { sha256: upload.digest }, model: encoder.id },
      prepare: (scope) =>
        this.prepare(request.image, upload, { known, scope }, (slot, photo) => {
          return runJob(slot, embeddingJob(photo, encoder, imageId, ctx.timings), ctx.timings);
        }),
      isEmpty: () => false,
      isValid: (r) => isConsistentEmbedding(r) && r.model.id === encoder.id && r.imageId === imageId,
    };
  }

  /** The encoder the inference workers run; a backend that cannot say is busy (503), nothing charged. */
  private async servedEncoder(): Promise<EncoderIdentity> {
    const unavailable = () =>
      new DomainError('service-busy', 'the inference workers are not available to make embeddings', { retryAfterSeconds: this.options.busyRetryAfterSeconds });
    if (!this.backend.encoderModel) throw unavailable();
    try {
      return await this.backend.encoderModel();
    } catch {
      throw unavailable();
    }
  }

  private async prepareUpstream(
    request: WithImageField<SegmentRequest>,
    upload: Upload,
    known: ImageMemo | undefined,
    upstream: NonNullable<SegmentationOptions['textUpstream']>,
    timings?: Record<string, number>,
  ): Promise<PreparedWork<SegmentResponse>> {
    // The same checks as for the local engine: a file that is not an image is refused before the charge.
    await this.checkUpload(upload, known);
    const imageText = typeof request.image === 'string' ? request.image : request.image.toString('latin1');
    if (this.upstreamInFlight >= upstream.maxInFlight) {
      throw new DomainError('service-busy', 'the text upstream has as many calls in flight as allowed', {
        retryAfterSeconds: this.options.busyRetryAfterSeconds,
      });
    }
    this.upstreamInFlight++;
    let released = false;
    const release = () => {
      if (!released) this.upstreamInFlight--;
      released = true;
    };
    return {
      run: async () => {
        try {
          return await timed(timings, 'upstream', () => upstream.segmenter.segmentBase64(imageText, request.prompts));
        } catch (error) {
          if (error instanceof UpstreamError) throw new DomainError('upstream-failure', error.message);
          throw error;
        } finally {
          release();
        }
      },
      cancel: release,
    };
  }

  /**
   * The upload's 400, if it has one; an image seen for the first time has its header checked (its
   * size, within the pixel limit), then is known. Answers the image's size as displayed.
   */
  private async checkUpload(upload: Upload, known: ImageMemo | undefined): Promise<ImageSize> {
    if (upload.error) throw upload.error;
    if (upload.bytes) {
      upload.size = await this.options.checkImage(upload.bytes);
      checkImageLargeEnough(upload.size);
      known?.add(upload.fieldDigest, { digest: upload.digest, ...upload.size });
    }
    if (!upload.size) throw new Error('an upload without bytes must be a known image');
    return upload.size;
  }

  /**
   * Checks an image seen for the first time (400 before anything is charged), the prompts against
   * its size (400), and reserves a worker slot (503). A known image goes to the worker by digest
   * only; the loader reads the file again should that worker not hold its pixels.
   */
  private async prepare<Res>(
    field: ImageField,
    upload: Upload,
    /** The payer's memo of checked fields, and the payer's scope (the caches the job names are the payer's). */
    payer: { known: ImageMemo | undefined; scope: string },
    work: (slot: InferenceSlot, photo: JobPhoto) => Promise<Res>,
    checkPrompts?: (size: ImageSize) => void,
  ): Promise<PreparedWork<Res>> {
    const size = await this.checkUpload(upload, payer.known);
    checkPrompts?.(size);
    const { bytes, digest, fieldDigest } = upload;
    const slot = this.backend.tryReserve(payer.scope);
    if (!slot) {
      throw new DomainError('service-busy', 'all inference workers are busy and the queue is full', {
        retryAfterSeconds: this.options.busyRetryAfterSeconds,
      });
    }
    const photo = this.photo(payer.scope, digest, bytes, () => decodeImageField(field));
    const run = async () => {
      try {
        return await work(slot, photo);
      } catch (error) {
        // What passed the header check but does not decode (truncated, corrupt) is checked afresh next time.
        if (error instanceof DomainError && error.slug === 'invalid-image') payer.known?.forget(fieldDigest);
        throw error;
      }
    };
    return { run, cancel: () => slot.release(), startsBeforeCharge: true };
  }

  /** The photo of a job in the payer's scope: its file when this call carried it (`bytes`), else read again by `load` should its pixels be needed. */
  private photo(scope: string, digest: string, bytes: Uint8Array | undefined, load: () => Uint8Array): JobPhoto {
    const { imageDigest, cacheKey } = privateCacheKeys(scope, digest);
    return { cacheKey, withFile: bytes !== undefined, pixels: () => this.decodedPhotos.pixels(imageDigest, () => bytes ?? load()) };
  }

  /**
   * Region descriptors of `masks` on a photo file (learned classes, src/engine/learn/), for the
   * server's jobs: run on a worker through the fair queue in `scope`'s share, unmetered (the job
   * that asks prices its own work). 503 `service-busy` when no worker place is free.
   */
  async describeRegions(scope: string, image: Uint8Array, masks: BinaryMask[]): Promise<RegionDescriptor[]> {
    const slot = this.backend.tryReserve(scope);
    if (!slot) throw new DomainError('service-busy', 'all inference workers are busy and the queue is full', { retryAfterSeconds: this.options.busyRetryAfterSeconds });
    const digest = createHash('sha256').update(image).digest('base64');
    return runJob(slot, describeRegionsJob(this.photo(scope, digest, image, () => image), masks));
  }
}

/**
 * What the request fingerprint covers: the validated request, its image stood in for by its
 * content digest (of the decoded file, so a data URI and bare Base64 of one photo are one request),
 * and the 2 MB string is hashed by neither the fingerprint nor the worker.
 */
export function fingerprintBody<R extends { image: ImageField }>(request: R, upload: Upload): unknown {
  return { ...request, image: { sha256: upload.digest } };
}

/** Whether any prediction holds a polygon (three vertices or more): an answer without one is refunded. */
function hasPolygon(predictions: ReadonlyArray<{ masks: ReadonlyArray<readonly unknown[]> }>): boolean {
  return predictions.some((pred) => pred.masks.some((m) => m.length >= 3));
}

/** The answer of `job` on a worker; a decode failure of a file that looked like an image becomes a 400. */
async function runJob<R>(slot: InferenceSlot, job: EngineJob<R>, timings?: Timings): Promise<R> {
  const start = performance.now();
  try {
    const result = await slot.run(job);
    if (timings) {
      // Always named, 0 when the job needed no decode (a click on a held photo): clients read the same header on every call.
      timings.decode ??= 0;
      timings.engine ??= 0;
      // Waiting for a worker: what the job's decode and engine calls do not explain.
      timings.worker = Math.max(0, performance.now() - start - timings.decode - timings.engine);
    }
    return result;
  } catch (error) {
    if (error instanceof Error && error.name === 'ImageDecodeError') throw new DomainError('invalid-image', error.message);
    // The engine's own prompt checks (mirrors of the schema): a bad request, not an engine failure.
    if (error instanceof Error && error.name === 'PromptError') {
      throw new DomainError('validation-failed', error.message, { errors: [{ path: 'points', message: error.message }] });
    }
    throw error;
  }
}
