/**
 * The two metered endpoints as domain calls: validated request in, CallOutcome out.
 * Image decoding and the worker-slot reservation happen in `prepare`, i.e. after the key is
 * claimed but before the credit is taken: a bad image or a full pool costs nothing.
 */
import { PvsResponse, SegmentResponse, type PvsRequest, type SegmentRequest } from '../../contract/segmentation';
import { decodeImage, ImageDecodeError } from '../../engine/adapters/node-image';
import type { RgbaImage } from '../../engine/types';
import type { InferenceBackend } from '../inference/pool';
import type { TransferredImage } from '../inference/protocol';
import type { Billing, CallOutcome, PreparedWork } from './billing';
import { DomainError } from './errors';
import { decodeImageField } from './image-field';

export interface CallContext {
  accountId: string;
  requestId: string;
  method: string;
  path: string;
  idempotencyKey?: string;
  forceRefresh: boolean;
}

export interface SegmentationOptions {
  /** Retry-After for 503 service-busy. */
  busyRetryAfterSeconds: number;
}

export class Segmentation {
  constructor(
    private readonly billing: Billing,
    private readonly backend: InferenceBackend,
    private readonly options: SegmentationOptions = { busyRetryAfterSeconds: 2 },
  ) {}

  pvs(ctx: CallContext, request: PvsRequest): Promise<CallOutcome> {
    // Client-chosen image ids are namespaced per account: one account never hits another's cache.
    const cacheKey = request.imageId ? `${ctx.accountId}/${request.imageId}` : undefined;
    return this.billing.run<PvsResponse>({
      ...ctx,
      endpoint: 'pvs',
      body: request,
      prepare: () =>
        this.prepare(request.image, async (slot, image) => {
          const result = await slot.run({
            kind: 'pvs',
            image,
            cacheKey,
            points: request.points,
            box: request.box,
            multimaskOutput: request.multimaskOutput,
          });
          if (result.kind !== 'pvs') throw new Error('worker answered the wrong job kind');
          return request.imageId ? { ...result.response, imageId: request.imageId } : result.response;
        }),
      isEmpty: (r) => !r.prompts.some((p) => p.predictions.some((pred) => pred.masks.some((m) => m.length >= 3))),
      isValid: (r) => PvsResponse.safeParse(r).success && hasFiniteCoordinates(r),
    });
  }

  segment(ctx: CallContext, request: SegmentRequest): Promise<CallOutcome> {
    return this.billing.run<SegmentResponse>({
      ...ctx,
      endpoint: 'segment',
      body: request,
      prepare: () =>
        this.prepare(request.image, async (slot, image) => {
          const result = await slot.run({ kind: 'segment', image, prompts: request.prompts });
          if (result.kind !== 'segment') throw new Error('worker answered the wrong job kind');
          return result.response;
        }),
      isEmpty: (r) => !r.prompt_results.some((p) => p.predictions.some((pred) => pred.masks.some((m) => m.length >= 3))),
      isValid: (r) =>
        SegmentResponse.safeParse(r).success &&
        r.prompt_results.length === request.prompts.length &&
        r.prompt_results.every((p, i) => p.echo.text === request.prompts[i]) &&
        hasFiniteCoordinates(r),
    });
  }

  private async prepare<Res>(
    imageField: string,
    work: (slot: NonNullable<ReturnType<InferenceBackend['tryReserve']>>, image: TransferredImage) => Promise<Res>,
  ): Promise<PreparedWork<Res>> {
    const bytes = decodeImageField(imageField);
    const slot = this.backend.tryReserve();
    if (!slot) {
      throw new DomainError('service-busy', 'all inference workers are busy and the queue is full', {
        retryAfterSeconds: this.options.busyRetryAfterSeconds,
      });
    }
    let image: RgbaImage;
    try {
      image = await decodeImage(bytes);
    } catch (error) {
      slot.release();
      if (error instanceof ImageDecodeError) throw new DomainError('invalid-image', error.message);
      throw error;
    }
    // A fresh buffer that can be transferred to the worker without detaching anything shared.
    const transferable: TransferredImage = { width: image.width, height: image.height, data: new Uint8Array(image.data) };
    return { run: () => work(slot, transferable), cancel: () => slot.release() };
  }
}

function hasFiniteCoordinates(value: unknown): boolean {
  let ok = true;
  JSON.stringify(value, (_k, v) => {
    if (typeof v === 'number' && !Number.isFinite(v)) ok = false;
    return v;
  });
  return ok;
}
