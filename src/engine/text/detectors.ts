/**
 * Each detector of the catalog (src/engine/catalog.ts) made from its model, by name: the one map
 * both runtimes load detectors through. TypeScript holds it complete: a detector added to the
 * catalog fails to compile until it is made here.
 */
import type { DetectorName } from '../catalog';
import type { Runtime } from '../runtime';
import { FaceDetector } from './blazeFace';
import { CocoSsdDetector } from './cocoSsd';
import { ObjectDetector, type ConceptDetector } from './detector';
import { OpenImagesDetector } from './openImagesSsd';

export interface DetectorOptions {
  /** Open Images SSD: answer only the concepts COCO lacks (the default), or the ones COCO shares too. */
  openImagesAnswers?: 'beyond-coco' | 'coco-shared';
}

const FACTORIES: Record<DetectorName, (runtime: Runtime, model: string | Uint8Array, options: DetectorOptions) => Promise<ConceptDetector>> = {
  centernet: (runtime, model) => ObjectDetector.create(runtime, model),
  'coco-ssd': (runtime, model) => CocoSsdDetector.create(runtime, model),
  blazeface: (runtime, model) => FaceDetector.create(runtime, model),
  'open-images-ssd': (runtime, model, options) => OpenImagesDetector.create(runtime, model, { answers: options.openImagesAnswers }),
};

export function createDetector(name: DetectorName, runtime: Runtime, model: string | Uint8Array, options: DetectorOptions = {}): Promise<ConceptDetector> {
  return FACTORIES[name](runtime, model, options);
}
