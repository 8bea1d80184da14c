/**
 * The two metered endpoints as domain calls: validated request in, CallOutcome out.
 * `prepare` runs before anything is claimed or charged: the image must be Base64 of a file whose
 * header an image decoder recognises (else 400), and a worker slot must be free (else 503).
 * Full decoding happens in the worker; a file that passes the header check but cannot be decoded
 * (truncated, corrupt) fails there after the charge, and is refunded and answered 400.
 */
import { PvsResponse, SegmentResponse, type PvsRequest, type SegmentRequest } from '../../contract/segmentation';
import sharp from 'sharp';
import type { ImageLoader, InferenceBackend, InferenceSlot } from '../inference/pool';
import type { InferenceJob, InferenceResult } from '../inference/protocol';
import type { Billing, CallOutcome, MeteredCall, PreparedWork } from './billing';
import { DomainError } from './errors';
import { decodeImageField, KnownImages, readUpload, RecentFields, type ImageField, type Upload, type WithImageField } from './image-field';
import { timed, timedSync } from './timings';
import { readImageHeader } from './image-header';
import { UpstreamError, type UpstreamTextSegmenter } from '../../engine/text/upstream';
import type { PaidCalls, PaymentContext } from './x402/paid-calls';

/** Decompression-bomb guard (documented in the README): 64 megapixels, e.g. 8000 × 8000. */
export const MAX_IMAGE_PIXELS = 64_000_000;

/** Prefix of the engine's content-derived cache keys (src/engine/hash.ts imageContentKey). */
const CONTENT_KEY_PREFIX = 'px64:';

export interface CallContext {
  /** Filled in as the call proceeds (ms): reported in the Server-Timing header. */
  timings?: Record<string, number>;
  accountId: string;
  /** The account's balance as read at authentication, when it was (see MeteredCall.balanceHint). */
  balanceHint?: number;
  requestId: string;
  method: string;
  path: string;
  idempotencyKey?: string;
  /** Digest of the request's bytes (keyed requests): stored with the attempt for fast retries. */
  bodyDigest?: string;
  forceRefresh: boolean;
  /** Paid per request (x402) instead of credits; then `accountId` is empty. */
  payment?: PaymentContext;
}

export const DEFAULT_BUSY_RETRY_AFTER_SECONDS = 2;

export interface SegmentationOptions {
  /** Retry-After for 503 service-busy. */
  busyRetryAfterSeconds: number;
  /**
   * TEXT_UPSTREAM_URL: text prompts go to a SAM-3-class server instead of the local detector
   * pipeline. Its failures are engine failures for billing: refunded against the charge.
   */
  textUpstream?: { segmenter: UpstreamTextSegmenter; maxInFlight: number };
}

export class Segmentation {
  constructor(
    private readonly billing: Billing,
    private readonly backend: InferenceBackend,
    private readonly options: SegmentationOptions = { busyRetryAfterSeconds: DEFAULT_BUSY_RETRY_AFTER_SECONDS },
    /** Present when per-request payment (x402) is configured. */
    private readonly paidCalls?: PaidCalls,
  ) {}

  /** Calls to the text upstream in flight: bounded like the worker queue, so a slow upstream means 503, not a pile-up. */
  private upstreamInFlight = 0;

  /** Images already checked here: not decoded again, and sent to the worker by digest only. */
  private readonly knownImages = new KnownImages();
  /** The last image sent under each account's imageId: recognised by its bytes, not hashed again. */
  private readonly recentFields = new RecentFields();

  /** Credits (Billing) or, for a request carrying an x402 payment, the paid-call flow. */
  private run<Res>(ctx: CallContext, call: MeteredCall<Res>): Promise<CallOutcome> {
    if (!ctx.payment) return this.billing.run(call);
    if (!this.paidCalls) throw new Error('an x402 payment reached a server without x402 configured');
    return this.paidCalls.run(call, ctx.payment);
  }

  pvs(ctx: CallContext, request: WithImageField<PvsRequest>): Promise<CallOutcome> {
    // Client-chosen image ids are namespaced per account (or payer): one never hits another's cache.
    // The engine's own content keys (returned as imageId when none was given) are derived from the
    // pixels and checked against them on every hit, so they are shared as they are.
    const cacheKeyIn = (scope: string) =>
      request.imageId ? (request.imageId.startsWith(CONTENT_KEY_PREFIX) ? request.imageId : `${scope}/${request.imageId}`) : undefined;
    // Only for accounts: the name picks which remembered field to compare with (the comparison
    // itself is what makes a hit safe), and an x402 call's payer is not known yet.
    const recent = request.imageId && ctx.accountId ? { fields: this.recentFields, name: `${ctx.accountId}\u0000${request.imageId}` } : undefined;
    const upload = timedSync(ctx.timings, 'upload', () => readUpload(request.image, this.knownImages, recent));
    return this.run<PvsResponse>(ctx, {
      ...ctx,
      endpoint: 'pvs',
      body: fingerprintBody(request, upload),
      prepare: (scope) =>
        this.prepare(request.image, upload, async (slot, image) => {
          const cacheKey = cacheKeyIn(scope);
          const { points, box, multimaskOutput } = request;
          const result = await runJob(slot, { kind: 'pvs', ...image.job, cacheKey, points, box, multimaskOutput }, image.load, ctx.timings);
          if (result.kind !== 'pvs') throw new Error('worker answered the wrong job kind');
          return request.imageId ? { ...result.response, imageId: request.imageId } : result.response;
        }),
      isEmpty: (r) => !r.prompts.some((p) => p.predictions.some((pred) => pred.masks.some((m) => m.length >= 3))),
      // zod 4's z.number() refuses NaN and ±Infinity, so the schema also keeps coordinates finite.
      isValid: (r) => PvsResponse.safeParse(r).success,
    });
  }

  segment(ctx: CallContext, request: WithImageField<SegmentRequest>): Promise<CallOutcome> {
    const upstream = this.options.textUpstream;
    const upload = timedSync(ctx.timings, 'upload', () => readUpload(request.image, this.knownImages));
    return this.run<SegmentResponse>(ctx, {
      ...ctx,
      endpoint: 'segment',
      body: fingerprintBody(request, upload),
      prepare: () =>
        upstream ? this.prepareUpstream(request, upload, upstream, ctx.timings) : this.prepare(request.image, upload, async (slot, image) => {
          const result = await runJob(slot, { kind: 'segment', ...image.job, prompts: request.prompts }, image.load, ctx.timings);
          if (result.kind !== 'segment') throw new Error('worker answered the wrong job kind');
          return result.response;
        }),
      isEmpty: (r) => !r.prompt_results.some((p) => p.predictions.some((pred) => pred.masks.some((m) => m.length >= 3))),
      isValid: (r) =>
        SegmentResponse.safeParse(r).success &&
        r.prompt_results.length === request.prompts.length &&
        r.prompt_results.every((p, i) => p.echo.text === request.prompts[i]),
    });
  }

  private async prepareUpstream(
    request: WithImageField<SegmentRequest>,
    upload: Upload,
    upstream: NonNullable<SegmentationOptions['textUpstream']>,
    timings?: Record<string, number>,
  ): Promise<PreparedWork<SegmentResponse>> {
    // The same checks as for the local engine: a file that is not an image is refused before the charge.
    await this.checkUpload(upload);
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

  /** The upload's 400, if it has one; an image seen for the first time has its header checked, then is known. */
  private async checkUpload(upload: Upload): Promise<void> {
    if (upload.error) throw upload.error;
    if (upload.bytes) {
      await checkImageHeader(upload.bytes);
      this.knownImages.add(upload.digest);
    }
  }

  /**
   * Checks an image seen for the first time (400 before anything is charged) and reserves a worker
   * slot (503). A known image goes to the worker by digest only; the loader reads the file again
   * should that worker not hold its pixels.
   */
  private async prepare<Res>(
    field: ImageField,
    upload: Upload,
    work: (slot: InferenceSlot, image: { job: { image?: Uint8Array; imageDigest: string }; load: ImageLoader }) => Promise<Res>,
  ): Promise<PreparedWork<Res>> {
    await this.checkUpload(upload);
    const { bytes, digest } = upload;
    const slot = this.backend.tryReserve();
    if (!slot) {
      throw new DomainError('service-busy', 'all inference workers are busy and the queue is full', {
        retryAfterSeconds: this.options.busyRetryAfterSeconds,
      });
    }
    const image = { job: { image: bytes, imageDigest: digest }, load: () => decodeImageField(field) };
    const run = async () => {
      try {
        return await work(slot, image);
      } catch (error) {
        // What passed the header check but does not decode (truncated, corrupt) is checked afresh next time.
        if (error instanceof DomainError && error.slug === 'invalid-image') this.knownImages.forget(digest);
        throw error;
      }
    };
    return { run, cancel: () => slot.release(), startsBeforeCharge: true };
  }
}

/**
 * What the request fingerprint covers: the validated request, its image stood in for by the digest
 * of its characters, so the 2 MB string is hashed by neither the fingerprint nor the worker.
 */
export function fingerprintBody<R extends { image: ImageField }>(request: R, upload: Upload): unknown {
  return { ...request, image: { sha256: upload.digest } };
}

const RASTER_FORMATS = new Set(['jpeg', 'png', 'webp', 'gif', 'avif', 'heif', 'tiff']);

/** The file's header must be that of an image format we decode; reads the header only. */
async function checkImageHeader(bytes: Uint8Array): Promise<void> {
  try {
    const meta = readImageHeader(bytes) ?? (await sharp(bytes, { limitInputPixels: false }).metadata());
    // Raster formats only: a vector image (SVG) is a document that can reference other files and
    // URLs, and rendering it is a larger attack surface than the product needs.
    if (!meta.format || !RASTER_FORMATS.has(meta.format)) throw new Error(`format ${meta.format ?? 'unknown'} is not accepted`);
    if (!meta.width || !meta.height) throw new Error('no dimensions');
    // Not a size rule of the spec (that is the character limit) but a decompression-bomb guard:
    // a 1.5 MiB PNG can claim 100 megapixels, i.e. 400 MB of RGBA in the worker.
    if (meta.width * meta.height > MAX_IMAGE_PIXELS) {
      throw new DomainError('invalid-image', `the image claims ${meta.width} × ${meta.height} pixels; at most ${MAX_IMAGE_PIXELS / 1e6} megapixels are decoded`);
    }
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw new DomainError(
      'invalid-image',
      `not a readable image (PNG, JPEG, WebP, GIF, AVIF or TIFF expected): ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** Runs a job; the worker's decode failure of a file that looked like an image becomes a 400. */
async function runJob(slot: InferenceSlot, job: InferenceJob, loadImage: ImageLoader, timings?: Record<string, number>): Promise<InferenceResult> {
  const start = performance.now();
  try {
    const result = await slot.run(job, loadImage);
    if (timings) {
      timings.decode = result.timings.decodeMs;
      timings.engine = result.timings.engineMs;
      // Waiting for a worker, moving the job and the answer between threads.
      timings.worker = performance.now() - start - result.timings.decodeMs - result.timings.engineMs;
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
