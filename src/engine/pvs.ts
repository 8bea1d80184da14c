/**
 * The point/box (PVS) path of the CLI and the API bench, on an engine in this thread:
 * embed (cached) → decode candidates → polygons → the API's PVS answer (answers.ts). The server's
 * workers serve EngineApi's `predict` instead (server/domain/engineJobs.ts writes its answer).
 */
import type { PvsAnswer } from './answers';
import type { SegmentationEngine } from './engine';
import { segmentationOptions, type SegmentationOptions } from './options';
import { maskOutline, outerRings } from './polygons';
import type { BoxPrompt, PointPrompt, RgbaImage } from './types';

export interface PvsEngineRequest {
  points?: PointPrompt[];
  box?: BoxPrompt;
  imageId?: string;
}

export interface PvsTimings {
  cacheHit: boolean;
  preprocessMs: number;
  encoderMs: number;
  decoderMs: number;
  postprocessMs: number;
  polygonMs: number;
  totalMs: number;
}

export async function runPvs(
  engine: SegmentationEngine,
  image: RgbaImage,
  request: PvsEngineRequest,
  chosen: Partial<SegmentationOptions> = {},
): Promise<{ response: PvsAnswer; timings: PvsTimings }> {
  const options = segmentationOptions(chosen);
  const t0 = performance.now();
  const embedded = await engine.embed(image, request.imageId, { mirrored: options.mirrorAverage });
  const predicted = await engine.predict(embedded.imageKey, { points: request.points, box: request.box }, options);
  const t1 = performance.now();
  const predictions = predicted.candidates
    .map((c) => ({
      // The API carries outer rings only; holes stay in the engine's own representation.
      masks: outerRings(maskOutline(c.mask, { ...options, area: c.area })),
      confidence: c.score,
    }))
    .filter((p) => p.masks.length > 0);
  const t2 = performance.now();
  return {
    response: { prompts: [{ predictions }], imageId: embedded.imageKey },
    timings: {
      cacheHit: embedded.cacheHit,
      ...embedded.timings,
      ...predicted.timings,
      polygonMs: t2 - t1,
      totalMs: t2 - t0,
    },
  };
}
