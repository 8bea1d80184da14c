/**
 * Text prompts and "find similar" for the engine worker, on the worker's own SAM engine (so the
 * embedding cache is shared with point prompts: one encoder run per image for everything).
 *
 * Free of DOM and Node APIs: the worker hands in how to load the detector (a download with progress
 * there, a file in Node tests), and this module answers with plain, transferable data.
 */
import type { SegmentationEngine } from '../engine';
import type { OutlineOptions } from '../options';
import { maskOutline } from '../polygons';
import { TextPipeline, type TextPipelineOptions } from '../text/pipeline';
import { interpretPrompt } from '../text/promptParser';
import { DEFAULT_EXEMPLAR_RULE, findByExample, type ExemplarRule } from '../text/exemplar';
import type { SimilarOptions } from '../text/similar';
import type { CocoClass } from '../text/cocoClasses';
import type { Concept } from '../text/concepts';
import type { ConceptDetector } from '../text/detector';
import type { BinaryMask, RgbaImage } from '../types';
import { COCO_CLASSES } from '../text/cocoClasses';
import type { FindSimilarResponse, SegmentTextResponse, TextPromptResult } from '../service/api';

/** A detector the service may load: what it can find, and how to fetch it (once, when first needed). */
export interface DetectorLoader {
  /** The detector's own name (ConceptDetector.name): segment everything asks for its box detectors by it. */
  readonly name: string;
  readonly vocabulary: readonly Concept[];
  load(): Promise<ConceptDetector>;
}

const ALL_COCO: readonly CocoClass[] = COCO_CLASSES;

export class TextService {
  private readonly loaders: readonly DetectorLoader[];
  private readonly loading = new Map<string, Promise<ConceptDetector>>();
  private readonly loaded = new Map<string, ConceptDetector>();

  /**
   * `detectors` in order of preference: a prompt waits only for the first detector that covers it;
   * the others are fetched meanwhile and join the pool once they are ready, so a second download
   * never delays an answer the first detector can give.
   */
  constructor(
    private readonly engine: SegmentationEngine,
    detectors: (() => Promise<ConceptDetector>) | readonly DetectorLoader[],
    private readonly options: TextPipelineOptions = {},
  ) {
    this.loaders = typeof detectors === 'function' ? [{ name: 'detector', vocabulary: ALL_COCO, load: detectors }] : detectors;
  }

  /** Whether any detector has been asked for yet (they are loaded on the first known prompt). */
  get detectorRequested(): boolean {
    return this.loading.size > 0;
  }

  private loadOnce(loader: DetectorLoader): Promise<ConceptDetector> {
    let pending = this.loading.get(loader.name);
    if (!pending) {
      pending = loader.load();
      this.loading.set(loader.name, pending);
      pending.then(
        (detector) => this.loaded.set(loader.name, detector),
        // A failed download may succeed on the next prompt (network back): do not keep the failure.
        () => this.loading.delete(loader.name),
      );
    }
    return pending;
  }

  /** The first covering detector (awaited) and every other covering one that is ready now. */
  private detectorsFor(wanted: ReadonlySet<string>): Promise<ConceptDetector[]> {
    return this.firstAndReady(this.loaders.filter((l) => l.vocabulary.some((c) => wanted.has(c))));
  }

  /** The first of `covering` (awaited) and every other one that is ready now; each is fetched once. */
  private async firstAndReady(covering: readonly DetectorLoader[]): Promise<ConceptDetector[]> {
    if (covering.length === 0) return [];
    const pending = covering.map((l) => this.loadOnce(l));
    const first = await pending[0];
    const others = covering.slice(1).flatMap((l) => this.loaded.get(l.name) ?? []);
    return [first, ...others];
  }

  /** Every detector, for prompts of any class (segment everything): the first one awaited, the others once ready. */
  detectorsOfEveryClass(): Promise<ConceptDetector[]> {
    return this.detectorsFor(new Set(this.loaders.flatMap((l) => l.vocabulary)));
  }

  /**
   * Every detector of these names, each awaited: what region descriptors read, so that a region is
   * described the same whichever detector happened to finish loading first.
   */
  everyDetectorNamed(names: readonly string[]): Promise<ConceptDetector[]> {
    return Promise.all(this.loaders.filter((l) => names.includes(l.name)).map((l) => this.loadOnce(l)));
  }

  /** The detectors of these names (segment everything's box detectors), in the service's order: the first awaited, the others once ready; no other is fetched. */
  detectorsNamed(names: readonly string[]): Promise<ConceptDetector[]> {
    return this.firstAndReady(this.loaders.filter((l) => names.includes(l.name)));
  }

  async segment(image: RgbaImage, prompts: readonly string[], imageId?: string, outline?: Partial<OutlineOptions>): Promise<SegmentTextResponse> {
    const t0 = performance.now();
    const interpretations = prompts.map(interpretPrompt);
    if (interpretations.every((i) => i.classes.length === 0)) {
      // Nothing the detector knows was asked for: no download, no model run.
      const results = interpretations.map((i): TextPromptResult => ({ text: i.text, known: false, classes: [], reason: i.reason, instances: [] }));
      const totalMs = performance.now() - t0;
      return { results, timings: { detectorMs: 0, embedMs: 0, decoderMs: 0, totalMs, embeddingCacheHit: false } };
    }
    const wanted = new Set(interpretations.flatMap((i) => i.classes));
    const pipeline = new TextPipeline(this.engine, await this.detectorsFor(wanted), this.options);
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
            polygons: maskOutline(t.mask, { ...outline, area: t.area }),
            mask: t.mask,
          }))
          .filter((t) => t.polygons.length > 0),
      })),
      timings,
    };
  }

  /**
   * Other instances like `source` (a mask over the embedded image `imageKey`, and `moreExamples`),
   * best first, by the exemplar rule asked for (src/engine/text/exemplar.ts): the detectors are
   * loaded only when the rule reads the examples' class from them and the photo came with the request.
   */
  async findSimilar(
    imageKey: string,
    source: BinaryMask,
    outline?: Partial<OutlineOptions>,
    ask: { moreExamples?: readonly BinaryMask[]; image?: RgbaImage; rule?: ExemplarRule; appearance?: SimilarOptions } = {},
  ): Promise<FindSimilarResponse> {
    const t0 = performance.now();
    const rule = ask.rule ?? DEFAULT_EXEMPLAR_RULE;
    const detectors = rule === 'detected' && ask.image ? await this.detectorsOfEveryClass() : [];
    const { answers, rejected, classes } = await findByExample(this.engine, imageKey, [source, ...(ask.moreExamples ?? [])], {
      rule,
      image: ask.image,
      detectors,
      calibration: this.options.calibration,
      appearance: ask.appearance,
    });
    const instances = answers
      .map((f) => ({
        confidence: f.confidence,
        source: f.source,
        ...(f.detectorClass === undefined ? {} : { detectorClass: f.detectorClass }),
        ...(f.similarity === undefined ? {} : { similarity: f.similarity }),
        area: f.area,
        polygons: maskOutline(f.mask, { ...outline, area: f.area }),
        mask: f.mask,
      }))
      .filter((f) => f.polygons.length > 0);
    return { instances, rejected, classes, timings: { totalMs: performance.now() - t0 } };
  }
}
