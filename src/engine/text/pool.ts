/**
 * Pooling the boxes of several detectors for one set of wanted concepts: every detector whose
 * vocabulary covers a wanted concept is asked; its scores are calibrated (calibration.ts) so they
 * compare across detectors; a box that another detector already found (same concept, box IoU above
 * `boxIou`) is a duplicate and only the better-scored one is kept. Masks that still coincide after
 * SAM are removed by the pipeline (mask IoU), since two different boxes can outline one object.
 */
import type { RgbaImage } from '../types';
import { calibrate, DETECTOR_CALIBRATION, type PlattParameters } from './calibration';
import type { Concept } from './concepts';
import { boxIoU, suppressOverlaps, type ConceptDetector, type Detection } from './detector';
import { weightedBoxFusion } from './fusion';
import { detectWithPasses, SINGLE_PASS, type DetectionPasses } from './passes';

/** Raw scores below this are never considered: far below any calibrated threshold we use. */
export const RAW_SCORE_FLOOR = 0.02;
export const DEFAULT_CROSS_DETECTOR_BOX_IOU = 0.7;

export function detectorsFor(detectors: readonly ConceptDetector[], wanted: ReadonlySet<string>): ConceptDetector[] {
  return detectors.filter((d) => d.vocabulary.some((concept) => wanted.has(concept)));
}

export interface MergeOptions {
  readonly boxIou?: number;
  readonly calibration?: Readonly<Record<string, PlattParameters>>;
  /**
   * 'suppress' keeps the best-calibrated of the detectors' boxes on one object; 'wbf' fuses them
   * (fusion.ts: corners averaged by calibrated score, score summed over the detectors asked).
   */
  readonly fusion?: 'suppress' | 'wbf';
}

/** Calibrated, thresholded and deduplicated across detectors; best first. */
export function mergeDetections(perDetector: readonly (readonly Detection[])[], minScore: number, options: MergeOptions = {}): Detection[] {
  const table = options.calibration ?? DETECTOR_CALIBRATION;
  const calibrated = perDetector.map((list) =>
    list.map((d) => ({ ...d, rawScore: d.rawScore ?? d.score, score: calibrate(d.detector, d.rawScore ?? d.score, table) })),
  );
  const boxIou = options.boxIou ?? DEFAULT_CROSS_DETECTOR_BOX_IOU;
  if (options.fusion === 'wbf' && calibrated.length > 1) {
    const whole = { x0: -Infinity, y0: -Infinity, x1: Infinity, y1: Infinity };
    return weightedBoxFusion(calibrated.map((detections) => ({ detections, view: whole })), boxIou).filter((d) => d.score >= minScore);
  }
  const all = calibrated
    .flat()
    .filter((d) => d.score >= minScore)
    .sort((a, b) => b.score - a.score);
  return suppressOverlaps(all, (a, b) => (a.label === b.label && a.detector !== b.detector ? boxIoU(a.box, b.box) : 0), boxIou);
}

/** Each asked detector's boxes of the wanted concepts (all passes, fused), raw scores; in `detectors`' order. */
export async function detectEach(
  detectors: readonly ConceptDetector[],
  image: RgbaImage,
  wanted: ReadonlySet<Concept> | undefined,
  passes: DetectionPasses = SINGLE_PASS,
): Promise<Detection[][]> {
  const asked = wanted ? detectorsFor(detectors, wanted) : [...detectors];
  const perDetector: Detection[][] = [];
  for (const detector of asked) {
    const found = await detectWithPasses(detector, image, passes, { minScore: RAW_SCORE_FLOOR });
    perDetector.push(wanted ? found.filter((d) => wanted.has(d.label)) : found);
  }
  return perDetector;
}

export async function poolDetections(
  detectors: readonly ConceptDetector[],
  image: RgbaImage,
  wanted: ReadonlySet<Concept> | undefined,
  minScore: number,
  options: MergeOptions & { passes?: DetectionPasses } = {},
): Promise<Detection[]> {
  return mergeDetections(await detectEach(detectors, image, wanted, options.passes), minScore, options);
}
