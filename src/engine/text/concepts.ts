/**
 * Every concept a local detector can find: the 80 COCO classes and the concepts of the detectors
 * beyond COCO (a face detector; the Open Images SSD's labels that COCO lacks). Labels, vocabularies
 * and prompt interpretations use these names.
 */
import { COCO_CLASSES, type CocoClass } from './cocoClasses';

/** Concepts outside COCO, each found by its own detector (see catalog.ts). */
export const EXTRA_CONCEPTS = ['face', 'footwear', 'high heels', 'desk'] as const;
export type ExtraConcept = (typeof EXTRA_CONCEPTS)[number];

export type Concept = CocoClass | ExtraConcept;

export const ALL_CONCEPTS: readonly Concept[] = [...COCO_CLASSES, ...EXTRA_CONCEPTS];
