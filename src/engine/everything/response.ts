/**
 * Segment everything as the API answers it, on an engine in this thread: the CLI's path (embed or
 * find the embedding cached, segment, outline), like pvs.ts for PVS. The server's workers serve
 * EngineApi's `segmentEverything` instead (server/domain/engineJobs.ts writes its answer).
 */
import type { EverythingAnswer } from '../answers';
import type { SegmentationEngine } from '../engine';
import type { OutlineOptions } from '../options';
import { maskOutline, outerRings } from '../polygons';
import type { RgbaImage } from '../types';
import { segmentEverything, type EverythingOptions, type EverythingResult, type Proposal } from './segmentEverything';

/** Proposals as the service's everything response (outer rings; masks whose outline is empty are left out). */
export function toEverythingResponse(proposals: readonly Proposal[], outline: Partial<OutlineOptions> = {}): EverythingAnswer {
  return {
    predictions: proposals
      .map((p) => ({
        confidence: Math.min(1, Math.max(0, p.confidence)),
        masks: outerRings(maskOutline(p.mask, { ...outline, area: p.area })),
        source: p.source,
        ...(p.label === undefined ? {} : { label: p.label }),
      }))
      .filter((p) => p.masks.length > 0),
  };
}

export interface RunEverythingOptions extends Omit<EverythingOptions, 'image'> {
  /** The embedding's cache key (left out: the image's content hash). */
  readonly imageId?: string;
  readonly outline?: Partial<OutlineOptions>;
}

export async function runEverything(
  engine: SegmentationEngine,
  image: RgbaImage,
  options: RunEverythingOptions = {},
): Promise<{ response: EverythingAnswer; result: EverythingResult; embedMs: number }> {
  const { imageId, outline, ...rest } = options;
  const t0 = performance.now();
  const { imageKey } = await engine.embed(image, imageId);
  const embedMs = performance.now() - t0;
  const result = await segmentEverything(engine, imageKey, { ...rest, image });
  return { response: toEverythingResponse(result.proposals, outline), result, embedMs };
}
