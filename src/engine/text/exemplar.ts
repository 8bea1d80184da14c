/**
 * Label a class from examples: the person outlines one or a few instances, the engine proposes the
 * others. Two ways to find them, chosen per request:
 *
 * - 'detected' — proposals from what the detectors already see, matched to the examples. The
 *   detectors (every class they know) run on the photo; the detection that coincides with an example
 *   (box IoU ≥ `EXEMPLAR_MATCH.exampleBoxIou`) tells which class the example is; the other detections
 *   of that class (of each example's class, for several examples) become box prompts for SAM, through
 *   the text pipeline's own box → mask path (`instancesOfDetections`). Each answer's confidence is the
 *   detector's calibrated score: the probability, fitted per detector (calibration.ts), that such a
 *   detection is an object of its class — the same number a text prompt of that class would show, so
 *   "accept all above 0.6" means one thing whichever way a proposal came. When no detection
 *   coincides with an example well enough (a thing no detector knows), the appearance rule answers.
 * - 'peaks' / 'verified' — appearance alone (similar.ts): SAM's image features around the examples.
 *
 * One threshold decides what is proposed: `DEFAULT_MIN_DETECTOR_SCORE`, the text pipeline's (an
 * example read as class C is answered as the text prompt "C" is). Naming the example needs none
 * (`classesOfExamples`): the person has already said it is an object.
 * What is proposed never repeats an example or another proposal, lies inside one or covers two
 * (proposalDedupe.ts), nor holds an example (at the same containment share). DOM- and Node-free: the worker, the server, the CLI and the eval share it.
 */
import { maskBounds } from '../bounds';
import type { SegmentationEngine } from '../engine';
import { DEFAULT_PROPOSAL_DEDUPE, dedupeProposals } from '../proposalDedupe';
import type { BinaryMask, RgbaImage } from '../types';
import type { PlattParameters } from './calibration';
import type { Concept } from './concepts';
import { boxIoU, type ConceptDetector, type CornerBox, type Detection } from './detector';
import { DEFAULT_MIN_DETECTOR_SCORE, instancesOfDetections } from './pipeline';
import { detectEach, mergeDetections } from './pool';
import { DEFAULT_SIMILAR_RULE, findSimilarReport, overlapFraction, SIMILAR_RULES, type SimilarOptions, type SimilarRule } from './similar';

export type ExemplarRule = 'detected' | SimilarRule;
export const EXEMPLAR_RULES: readonly ExemplarRule[] = ['detected', ...SIMILAR_RULES];
/** What "Find similar" and Label all's examples use when the caller names no rule. */
export const DEFAULT_EXEMPLAR_RULE: ExemplarRule = 'detected';

export const EXEMPLAR_MATCH = {
  /**
   * A detection is the example itself at this box IoU or more: COCO's (and PASCAL VOC's) criterion
   * for a detection matching an object, not a value fitted here.
   */
  exampleBoxIou: 0.5,
} as const;

/** Where an answer came from: a detection of the example's class, or SAM's appearance features. */
export type ExemplarSource = 'detector' | 'appearance';

export interface ExemplarAnswer {
  readonly mask: BinaryMask;
  readonly area: number;
  /** How sure the engine is that this is another instance of the examples' kind, in [0, 1]. */
  readonly confidence: number;
  readonly source: ExemplarSource;
  /** The detector's class it was found as ('detector' answers). */
  readonly detectorClass?: Concept;
  /** Which detector, and its calibrated score ('detector' answers). */
  readonly detector?: string;
  readonly detectorScore?: number;
  /** SAM's predicted IoU of the mask. */
  readonly maskScore: number;
  /** Cosine similarity of the answer's appearance prototype to the examples' ('appearance' answers). */
  readonly similarity?: number;
  /** The examples' class as the caller named it, carried by every answer. */
  readonly label?: string;
}

export interface ExemplarOptions {
  readonly rule?: ExemplarRule;
  /** The examples' class, as the person named it. */
  readonly label?: string;
  /** The photo and the detectors ('detected'; without them the appearance rule answers). */
  readonly image?: RgbaImage;
  readonly detectors?: readonly ConceptDetector[];
  /** The calibrated score a detection needs to be proposed (default the text pipeline's). */
  readonly minDetectorScore?: number;
  readonly calibration?: Readonly<Record<string, PlattParameters>>;
  /** The appearance rule of the fallback ('detected') or of the request ('peaks', 'verified'). */
  readonly appearance?: Omit<SimilarOptions, 'rule' | 'label'> & { readonly rule?: SimilarRule };
}

export interface ExemplarReport {
  readonly rule: ExemplarRule;
  /** Best first. */
  readonly answers: ExemplarAnswer[];
  /** The detector classes the examples were read as (empty: the appearance rule answered). */
  readonly classes: Concept[];
  /** Answers turned down: unlike the examples (appearance), or repeating an example or each other. */
  readonly rejected: number;
}

/** The pixel rectangle around a mask as a corner box (exclusive far edges, as detectors give). */
export function exampleBox(mask: BinaryMask): CornerBox | undefined {
  const b = maskBounds(mask.data, mask.width, mask.height);
  return b && { x0: b.x0, y0: b.y0, x1: b.x1 + 1, y1: b.y1 + 1 };
}

/**
 * The class each example is, as the detections say: of the detections coinciding with the example
 * (box IoU ≥ `EXEMPLAR_MATCH.exampleBoxIou`), the best-scored one's class, at any score. No score
 * threshold on purpose: the person has said there is an object there, so the question is only which
 * class the detectors find most likely for it (a threshold of 0.3 here left a third of coco-tiny's
 * examples unnamed, answered by appearance at 5 % precision: docs/RESULTS.md). Examples no detection
 * coincides with add nothing; the classes come back in the examples' order, once each.
 */
export function classesOfExamples(detections: readonly Detection[], boxes: readonly CornerBox[]): Concept[] {
  const classes: Concept[] = [];
  for (const box of boxes) {
    let best: Detection | undefined;
    for (const d of detections) {
      if (boxIoU(d.box, box) < EXEMPLAR_MATCH.exampleBoxIou) continue;
      if (!best || d.score > best.score) best = d;
    }
    if (best && !classes.includes(best.label)) classes.push(best.label);
  }
  return classes;
}

/** The other instances of the examples' kind on the embedded photo `imageKey`, best first. */
export async function findByExample(
  engine: SegmentationEngine,
  imageKey: string,
  examples: readonly BinaryMask[],
  options: ExemplarOptions = {},
): Promise<ExemplarReport> {
  if (examples.length === 0) throw new Error('label from examples needs at least one example mask');
  const rule = options.rule ?? DEFAULT_EXEMPLAR_RULE;
  const minScore = options.minDetectorScore ?? DEFAULT_MIN_DETECTOR_SCORE;
  if (rule === 'detected' && options.image && options.detectors?.length) {
    const boxes = examples.map(exampleBox).filter((b): b is CornerBox => !!b);
    // Every class, scores calibrated so that one threshold means the same for every detector.
    const detections = mergeDetections(await detectEach(options.detectors, options.image, undefined), 0, { calibration: options.calibration });
    const classes = classesOfExamples(detections, boxes);
    if (classes.length > 0) return byDetections(engine, imageKey, examples, boxes, detections, classes, minScore, options.label);
  }
  const appearanceRule = rule === 'detected' ? (options.appearance?.rule ?? DEFAULT_SIMILAR_RULE) : rule;
  const { instances, rejected } = await findSimilarReport(engine, imageKey, examples, { ...options.appearance, rule: appearanceRule, label: options.label });
  const answers = instances.map(
    (f): ExemplarAnswer => ({
      mask: f.mask,
      area: f.area,
      confidence: f.confidence,
      source: 'appearance',
      maskScore: f.maskScore,
      similarity: f.similarity,
      ...(options.label === undefined ? {} : { label: options.label }),
    }),
  );
  return { rule, answers, classes: [], rejected };
}

async function byDetections(
  engine: SegmentationEngine,
  imageKey: string,
  examples: readonly BinaryMask[],
  boxes: readonly CornerBox[],
  detections: readonly Detection[],
  classes: readonly Concept[],
  minScore: number,
  label: string | undefined,
): Promise<ExemplarReport> {
  const wanted = detections
    .filter((d) => classes.includes(d.label) && d.score >= minScore)
    // The examples themselves are not found again.
    .filter((d) => boxes.every((b) => boxIoU(d.box, b) < EXEMPLAR_MATCH.exampleBoxIou))
    .sort((a, b) => b.score - a.score);
  const instances = (await instancesOfDetections(engine, imageKey, wanted)).filter((t) => t !== null);
  const proposals = instances.map((t) => ({
    mask: t.mask,
    classKey: 'example',
    answer: {
      mask: t.mask,
      area: t.area,
      confidence: Math.min(1, Math.max(0, t.detectorScore)),
      source: 'detector',
      detectorClass: t.label,
      ...(t.detector === undefined ? {} : { detector: t.detector }),
      detectorScore: t.detectorScore,
      maskScore: t.maskScore,
      ...(label === undefined ? {} : { label }),
    } satisfies ExemplarAnswer,
  }));
  // The examples are accepted objects of the same class: a repeat, a part or a group of them is out,
  // and so is a mask that holds an example (the example outlined larger: another instance never does).
  const { kept, dropped } = dedupeProposals(
    examples.map((mask) => ({ mask, classKey: 'example' })),
    proposals,
  );
  const { containment } = DEFAULT_PROPOSAL_DEDUPE;
  const answers = kept.filter((k) => examples.every((e) => overlapFraction(e, k.mask) < containment)).map((k) => k.answer);
  return { rule: 'detected', answers, classes: [...classes], rejected: dropped.length + kept.length - answers.length };
}
