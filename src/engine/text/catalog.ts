/**
 * Which detectors answer which concepts, for the studio's "known concepts" list and the README:
 * the names match ConceptDetector.name, the vocabularies the detectors' own.
 */
import { COCO_CLASSES } from './cocoClasses';
import type { Concept } from './concepts';
import { OPEN_IMAGES_CONCEPTS } from './openImagesSsd';

export interface CatalogEntry {
  readonly name: string;
  readonly title: string;
  readonly vocabulary: readonly Concept[];
}

export const DETECTOR_CATALOG: readonly CatalogEntry[] = [
  { name: 'centernet', title: 'CenterNet (COCO)', vocabulary: COCO_CLASSES },
  { name: 'coco-ssd', title: 'COCO-SSD (COCO)', vocabulary: COCO_CLASSES },
  { name: 'blazeface', title: 'BlazeFace (faces)', vocabulary: ['face'] },
  { name: 'open-images-ssd', title: 'Open Images SSD (MediaPipe Objectron)', vocabulary: OPEN_IMAGES_CONCEPTS },
];

/** The detectors that can find `concept`, by title. */
export function detectorsAnswering(concept: string, catalog: readonly CatalogEntry[] = DETECTOR_CATALOG): string[] {
  return catalog.filter((d) => (d.vocabulary as readonly string[]).includes(concept)).map((d) => d.title);
}
