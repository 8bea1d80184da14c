/**
 * Text prompts and "find similar" for the engine worker, on the worker's own SAM engine (so the
 * embedding cache is shared with point prompts: one encoder run per image for everything).
 *
 * Free of DOM and Node APIs: the worker hands in how to load the detector (a download with progress
 * there, a file in Node tests), and this module answers with plain, transferable data.
 */
import type { SegmentationEngine } from '../engine';
import { maskOutline } from '../polygons';
import { TextPipeline, type TextPipelineOptions } from '../text/pipeline';
import { interpretPrompt } from '../text/prompt-parser';
import { findSimilar, type SimilarOptions } from '../text/similar';
import type { ObjectDetector } from '../text/detector';
import type { BinaryMask, RgbaImage } from '../types';
import type { FindSimilarResponse, SegmentTextResponse, TextPromptResult } from './protocol';

export class TextService {
  private detector: Promise<ObjectDetector> | undefined;

  constructor(
    private readonly engine: SegmentationEngine,
    private readonly loadDetector: () => Promise<ObjectDetector>,
    private readonly options: TextPipelineOptions = {},
  ) {}

  /** Whether the detector has been asked for yet (it is loaded on the first known prompt). */
  get detectorRequested(): boolean {
    return this.detector !== undefined;
  }

  private detectorOnce(): Promise<ObjectDetector> {
    if (!this.detector) {
      this.detector = this.loadDetector();
      // A failed download may succeed on the next prompt (network back): do not keep the failure.
      this.detector.catch(() => (this.detector = undefined));
    }
    return this.detector;
  }

  async segment(image: RgbaImage, prompts: readonly string[], imageId?: string, tolerance?: number): Promise<SegmentTextResponse> {
    const t0 = performance.now();
    const interpretations = prompts.map(interpretPrompt);
    if (interpretations.every((i) => i.classes.length === 0)) {
      // Nothing the detector knows was asked for: no download, no model run.
      const results = interpretations.map((i): TextPromptResult => ({ text: i.text, known: false, classes: [], reason: i.reason, instances: [] }));
      const totalMs = performance.now() - t0;
      return { results, timings: { detectorMs: 0, embedMs: 0, decoderMs: 0, totalMs, embeddingCacheHit: false } };
    }
    const pipeline = new TextPipeline(this.engine, await this.detectorOnce(), this.options);
    const { results, timings } = await pipeline.run(image, prompts, imageId);
    return {
      results: results.map((r) => ({
        text: r.text,
        known: r.interpretation.classes.length > 0,
        classes: [...r.interpretation.classes],
        reason: r.interpretation.reason,
        instances: r.instances
          .map((t) => ({
            label: t.label,
            confidence: Math.min(1, Math.max(0, t.confidence)),
            area: t.area,
            polygons: maskOutline(t.mask, { tolerance, area: t.area }),
            mask: t.mask,
          }))
          .filter((t) => t.polygons.length > 0),
      })),
      timings,
    };
  }

  /** Other instances like `source` (a mask over the embedded image `imageKey`), best first. */
  async findSimilar(imageKey: string, source: BinaryMask, tolerance?: number, options?: SimilarOptions): Promise<FindSimilarResponse> {
    const t0 = performance.now();
    const found = await findSimilar(this.engine, imageKey, source, options);
    const instances = found
      .map((f) => ({ score: f.score, similarity: f.similarity, area: f.area, polygons: maskOutline(f.mask, { tolerance, area: f.area }), mask: f.mask }))
      .filter((f) => f.polygons.length > 0);
    return { instances, timings: { totalMs: performance.now() - t0 } };
  }
}

/** The buffers of a text or similar answer, for the worker's transfer list. */
export function masksOf(response: SegmentTextResponse | FindSimilarResponse): Uint8Array[] {
  return 'results' in response ? response.results.flatMap((r) => r.instances.map((t) => t.mask.data)) : response.instances.map((f) => f.mask.data);
}
