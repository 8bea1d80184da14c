/**
 * Text prompts → objects: prompt understanding → COCO detector → each detection's box as a SAM
 * box prompt (one encoder run per image, shared by all prompts) → modifiers checked on the masks.
 *
 * Confidence = the detector's calibrated score (calibration.ts): the probability, fitted per
 * detector on the fit half of coco-tiny, that such a detection is an object of the class. One
 * threshold (`minDetectorScore`) then means the same for every detector, and pooled answers rank
 * fairly. SAM's predicted IoU is reported beside it (`maskScore`) but does not change the ranking.
 */
import type { SegmentAnswer } from '../answers';
import type { SegmentationEngine } from '../engine';
import { maskIoU, maskOutline, outerRings } from '../polygons';
import type { OutlineOptions } from '../options';
import type { BinaryMask, BoxPrompt, RgbaImage } from '../types';
import type { Concept } from './concepts';
import { maskColourHistogram, maskHasColour } from './colour';
import { suppressOverlaps, type ConceptDetector, type CornerBox, type Detection } from './detector';
import { poolDetections, type DetectionRule } from './pool';
import type { PlattParameters } from './calibration';
import { interpretPrompt, type Extreme, type PromptInterpretation } from './promptParser';

export interface TextInstance {
  readonly label: Concept;
  /** The calibrated detector score, in [0, 1] (see the module comment). */
  readonly confidence: number;
  /** The detector's calibrated score (see calibration.ts). */
  readonly detectorScore: number;
  /** Which detector found it, and its score before calibration. */
  readonly detector?: string;
  readonly rawDetectorScore?: number;
  /** SAM's predicted IoU for the mask, in [0, 1]. */
  readonly maskScore: number;
  readonly box: CornerBox;
  readonly mask: BinaryMask;
  readonly area: number;
}

export interface PromptResult {
  readonly text: string;
  readonly interpretation: PromptInterpretation;
  /** Best first. */
  readonly instances: readonly TextInstance[];
}

export interface TextPipelineOptions {
  /**
   * Detections whose calibrated score is below this are not reported. 0.3: on the fit half of
   * coco-tiny, the round threshold at which pooled answers keep a precision above 60 % with a margin.
   */
  readonly minDetectorScore?: number;
  /** Two instances of one prompt whose masks overlap more than this keep only the better one. */
  readonly maskNmsIou?: number;
  /** How the masks become the response's polygons (left out: the segmentation defaults). */
  readonly outline?: Partial<OutlineOptions>;
  /** Per-detector score calibration; default the fitted table (calibration.ts); `{}` = raw scores. */
  readonly calibration?: Readonly<Record<string, PlattParameters>>;
  /**
   * A detection rule the service does not ship (pool.ts's hook; the bench's extra looks at the photo
   * and box fusion, bench/text/). Left out: one look per detector, duplicates suppressed — the
   * looks the calibration table (calibration.ts) is fitted for.
   */
  readonly detection?: DetectionRule;
}

export interface TextRunTimings {
  detectorMs: number;
  embedMs: number;
  decoderMs: number;
  totalMs: number;
  embeddingCacheHit: boolean;
}

export const DEFAULT_MIN_DETECTOR_SCORE = 0.3;
export const DEFAULT_MASK_NMS_IOU = 0.8;

export function cornerToCenterBox(box: CornerBox): BoxPrompt {
  return { x: (box.x0 + box.x1) / 2, y: (box.y0 + box.y1) / 2, width: box.x1 - box.x0, height: box.y1 - box.y0 };
}

function centroid(mask: BinaryMask): [number, number] {
  let sx = 0;
  let sy = 0;
  let n = 0;
  for (let y = 0; y < mask.height; y++) {
    const row = y * mask.width;
    for (let x = 0; x < mask.width; x++) {
      if (mask.data[row + x]) {
        sx += x;
        sy += y;
        n++;
      }
    }
  }
  return n ? [sx / n, sy / n] : [NaN, NaN];
}

/** The one instance that is extreme in the asked sense. */
export function pickExtreme(instances: readonly TextInstance[], extreme: Extreme): TextInstance[] {
  if (instances.length === 0) return [];
  const key = (t: TextInstance): number => {
    switch (extreme) {
      case 'largest':
        return -t.area;
      case 'smallest':
        return t.area;
      case 'leftmost':
        return centroid(t.mask)[0];
      case 'rightmost':
        return -centroid(t.mask)[0];
      case 'topmost':
        return centroid(t.mask)[1];
      case 'bottommost':
        return -centroid(t.mask)[1];
    }
  };
  return [instances.reduce((best, t) => (key(t) < key(best) ? t : best))];
}

/**
 * Each detection's box as a SAM box prompt on the embedded photo `imageKey`: the detection with its
 * mask (null where SAM answered nothing), in the order given. Text prompts and exemplars share it.
 */
export async function instancesOfDetections(engine: SegmentationEngine, imageKey: string, detections: readonly Detection[]): Promise<(TextInstance | null)[]> {
  const instances: (TextInstance | null)[] = [];
  for (const detection of detections) {
    // One look at the photo, like the detectors: the mirror image's encoder run would add
    // seconds to every new photo's text prompt for a small gain on box prompts.
    const { candidates } = await engine.predict(imageKey, { box: cornerToCenterBox(detection.box) }, { multimask: false, mirrorAverage: false });
    const best = candidates[0];
    instances.push(
      best
        ? {
            label: detection.label,
            confidence: detection.score,
            detectorScore: detection.score,
            detector: detection.detector,
            rawDetectorScore: detection.rawScore,
            maskScore: best.score,
            box: detection.box,
            mask: best.mask,
            area: best.area,
          }
        : null,
    );
  }
  return instances;
}

export class TextPipeline {
  private readonly detectors: readonly ConceptDetector[];

  constructor(
    private readonly engine: SegmentationEngine,
    detectors: ConceptDetector | readonly ConceptDetector[],
    private readonly options: TextPipelineOptions = {},
  ) {
    this.detectors = Array.isArray(detectors) ? detectors : [detectors as ConceptDetector];
  }

  /** Pooled detections of every class at or above `minScore` (calibrated), best first. */
  detect(image: RgbaImage, minScore: number): Promise<Detection[]> {
    return poolDetections(this.detectors, image, undefined, minScore, this.poolOptions());
  }

  private poolOptions() {
    return { calibration: this.options.calibration, rule: this.options.detection };
  }

  async run(
    image: RgbaImage,
    prompts: readonly string[],
    imageId?: string,
    overrides: { minDetectorScore?: number } = {},
  ): Promise<{ imageKey?: string; results: PromptResult[]; detections: Detection[]; timings: TextRunTimings }> {
    const t0 = performance.now();
    const minScore = overrides.minDetectorScore ?? this.options.minDetectorScore ?? DEFAULT_MIN_DETECTOR_SCORE;
    const interpretations = prompts.map(interpretPrompt);
    const timings: TextRunTimings = { detectorMs: 0, embedMs: 0, decoderMs: 0, totalMs: 0, embeddingCacheHit: false };
    const wanted = new Set(interpretations.flatMap((i) => i.classes));
    if (wanted.size === 0) {
      // Nothing we know was asked for: no model runs at all.
      timings.totalMs = performance.now() - t0;
      return {
        results: interpretations.map((interpretation) => ({ text: interpretation.text, interpretation, instances: [] })),
        detections: [],
        timings,
      };
    }

    const detections = await poolDetections(this.detectors, image, wanted, minScore, this.poolOptions());
    const t1 = performance.now();
    timings.detectorMs = t1 - t0;
    let imageKey: string | undefined;
    const instanceOf = new Map<Detection, TextInstance | null>();
    if (detections.length > 0) {
      const embedded = await this.engine.embed(image, imageId);
      imageKey = embedded.imageKey;
      timings.embeddingCacheHit = embedded.cacheHit;
      const t2 = performance.now();
      timings.embedMs = t2 - t1;
      const instances = await instancesOfDetections(this.engine, embedded.imageKey, detections);
      detections.forEach((detection, i) => instanceOf.set(detection, instances[i]));
      timings.decoderMs = performance.now() - t2;
    }

    const maskNmsIou = this.options.maskNmsIou ?? DEFAULT_MASK_NMS_IOU;
    const results = interpretations.map((interpretation): PromptResult => {
      const classes = new Set(interpretation.classes);
      let instances = detections
        .filter((d) => classes.has(d.label))
        .map((d) => instanceOf.get(d))
        .filter((t): t is TextInstance => !!t)
        .sort((a, b) => b.confidence - a.confidence);
      // A general word ("vehicle") can bring one object twice (as car and as truck).
      instances = suppressOverlaps(instances, (a, b) => maskIoU(a.mask, b.mask), maskNmsIou);
      if (interpretation.colour) {
        const colour = interpretation.colour;
        instances = instances.filter((t) => maskHasColour(maskColourHistogram(image, t.mask), colour));
      }
      if (interpretation.extreme) instances = pickExtreme(instances, interpretation.extreme);
      return { text: interpretation.text, interpretation, instances };
    });
    timings.totalMs = performance.now() - t0;
    return { imageKey, results, detections, timings };
  }
}

/** The service's response: outer rings of each mask as [x, y] polygons, per prompt in order. */
export function toSegmentResponse(results: readonly PromptResult[], outline: Partial<OutlineOptions> = {}): SegmentAnswer {
  return {
    prompt_results: results.map((r) => ({
      echo: { text: r.text },
      predictions: r.instances
        .map((t) => ({
          label: t.label,
          confidence: Math.min(1, Math.max(0, t.confidence)),
          masks: outerRings(maskOutline(t.mask, { ...outline, area: t.area })),
        }))
        .filter((p) => p.masks.length > 0),
    })),
  };
}
