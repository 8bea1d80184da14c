/**
 * Pooling the boxes of several detectors for one set of wanted concepts: every detector whose
 * vocabulary covers a wanted concept is asked; its scores are calibrated (calibration.ts) so they
 * compare across detectors; a box that another detector already found (same concept, box IoU above
 * `boxIou`) is a duplicate and only the better-scored one is kept. Masks that still coincide after
 * SAM are removed by the pipeline (mask IoU), since two different boxes can outline one object.
 *
 * A detection rule the service does not ship (the bench's extra looks at the photo and box fusion,
 * bench/text/) plugs in through `DetectionRule`: how one detector looks at the photo, and how the
 * detectors' boxes become one list.
 */
import type { RgbaImage } from '../types';
import { calibrate, DETECTOR_CALIBRATION, type PlattParameters } from './calibration';
import type { Concept } from './concepts';
import { boxIoU, suppressOverlaps, type ConceptDetector, type DetectOptions, type Detection } from './detector';

/** Raw scores below this are never considered: far below any calibrated threshold we use. */
export const RAW_SCORE_FLOOR = 0.02;
export const DEFAULT_CROSS_DETECTOR_BOX_IOU = 0.7;

export function detectorsFor(detectors: readonly ConceptDetector[], wanted: ReadonlySet<string>): ConceptDetector[] {
  return detectors.filter((d) => d.vocabulary.some((concept) => wanted.has(concept)));
}

/** The hook of a detection rule; each stage left out is the service's own. */
export interface DetectionRule {
  /** One detector's boxes of the photo, photo pixels, best first (left out: one look, `detector.detect`). */
  detect?(detector: ConceptDetector, image: RgbaImage, options: DetectOptions): Promise<Detection[]>;
  /**
   * The calibrated boxes of two or more detectors as one list, before the score threshold (left out:
   * of one concept's boxes that overlap more than `boxIou`, the best-calibrated is kept).
   */
  fuse?(perDetector: readonly (readonly Detection[])[], boxIou: number): Detection[];
}

export interface MergeOptions {
  readonly boxIou?: number;
  readonly calibration?: Readonly<Record<string, PlattParameters>>;
  readonly fuse?: DetectionRule['fuse'];
}

/** Calibrated, thresholded and deduplicated across detectors; best first. */
export function mergeDetections(perDetector: readonly (readonly Detection[])[], minScore: number, options: MergeOptions = {}): Detection[] {
  const table = options.calibration ?? DETECTOR_CALIBRATION;
  const calibrated = perDetector.map((list) =>
    list.map((d) => ({ ...d, rawScore: d.rawScore ?? d.score, score: calibrate(d.detector, d.rawScore ?? d.score, table) })),
  );
  const boxIou = options.boxIou ?? DEFAULT_CROSS_DETECTOR_BOX_IOU;
  if (options.fuse && calibrated.length > 1) return options.fuse(calibrated, boxIou).filter((d) => d.score >= minScore);
  const all = calibrated
    .flat()
    .filter((d) => d.score >= minScore)
    .sort((a, b) => b.score - a.score);
  return suppressOverlaps(all, (a, b) => (a.label === b.label && a.detector !== b.detector ? boxIoU(a.box, b.box) : 0), boxIou);
}

/** Each asked detector's boxes of the wanted concepts (as `rule` looks, if given), raw scores; in `detectors`' order. */
export async function detectEach(
  detectors: readonly ConceptDetector[],
  image: RgbaImage,
  wanted: ReadonlySet<Concept> | undefined,
  rule: DetectionRule = {},
): Promise<Detection[][]> {
  const asked = wanted ? detectorsFor(detectors, wanted) : [...detectors];
  const perDetector: Detection[][] = [];
  for (const detector of asked) {
    const options = { minScore: RAW_SCORE_FLOOR };
    const found = rule.detect ? await rule.detect(detector, image, options) : await detector.detect(image, options);
    perDetector.push(wanted ? found.filter((d) => wanted.has(d.label)) : found);
  }
  return perDetector;
}

export async function poolDetections(
  detectors: readonly ConceptDetector[],
  image: RgbaImage,
  wanted: ReadonlySet<Concept> | undefined,
  minScore: number,
  options: Omit<MergeOptions, 'fuse'> & { rule?: DetectionRule } = {},
): Promise<Detection[]> {
  const rule = options.rule ?? {};
  return mergeDetections(await detectEach(detectors, image, wanted, rule), minScore, { ...options, fuse: rule.fuse });
}
