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

/** Raw scores below this are never considered: far below any calibrated threshold we use. */
export const RAW_SCORE_FLOOR = 0.02;
export const DEFAULT_CROSS_DETECTOR_BOX_IOU = 0.7;

export function detectorsFor(detectors: readonly ConceptDetector[], wanted: ReadonlySet<string>): ConceptDetector[] {
  return detectors.filter((d) => d.vocabulary.some((concept) => wanted.has(concept)));
}

/** Calibrated, thresholded and deduplicated across detectors; best first. */
export function mergeDetections(
  perDetector: readonly (readonly Detection[])[],
  minScore: number,
  options: { boxIou?: number; calibration?: Readonly<Record<string, PlattParameters>> } = {},
): Detection[] {
  const table = options.calibration ?? DETECTOR_CALIBRATION;
  const all = perDetector
    .flat()
    .map((d) => ({ ...d, rawScore: d.rawScore ?? d.score, score: calibrate(d.detector, d.rawScore ?? d.score, table) }))
    .filter((d) => d.score >= minScore)
    .sort((a, b) => b.score - a.score);
  const boxIou = options.boxIou ?? DEFAULT_CROSS_DETECTOR_BOX_IOU;
  return suppressOverlaps(all, (a, b) => (a.label === b.label && a.detector !== b.detector ? boxIoU(a.box, b.box) : 0), boxIou);
}

export async function poolDetections(
  detectors: readonly ConceptDetector[],
  image: RgbaImage,
  wanted: ReadonlySet<Concept> | undefined,
  minScore: number,
  calibration?: Readonly<Record<string, PlattParameters>>,
): Promise<Detection[]> {
  const asked = wanted ? detectorsFor(detectors, wanted) : [...detectors];
  const perDetector: Detection[][] = [];
  for (const detector of asked) {
    const found = await detector.detect(image, { minScore: RAW_SCORE_FLOOR });
    perDetector.push(wanted ? found.filter((d) => wanted.has(d.label)) : found);
  }
  return mergeDetections(perDetector, minScore, { calibration });
}
