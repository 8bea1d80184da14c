/**
 * Node loading of the detectors (server, CLI, eval): each catalog entry's file (src/engine/catalog.ts)
 * from public/models on onnxruntime-node, made by the one detector map (text/detectors.ts).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DETECTORS, detectorNamed, type DetectorName } from '../catalog';
import type { SegmentationEngine } from '../engine';
import type { FaceDetector } from '../text/blazeFace';
import type { CocoSsdDetector } from '../text/cocoSsd';
import type { ConceptDetector, ObjectDetector } from '../text/detector';
import { createDetector, type DetectorOptions } from '../text/detectors';
import type { OpenImagesDetector } from '../text/openImagesSsd';
import { createNodeRuntime, defaultModelDir, type NodeRuntimeOptions } from './ortNode';

type NodeDetectorOptions = NodeRuntimeOptions & { modelDir?: string };

export async function loadNodeDetectorNamed(name: DetectorName, options: NodeDetectorOptions & DetectorOptions = {}): Promise<ConceptDetector> {
  const entry = detectorNamed(name);
  const file = join(options.modelDir ?? defaultModelDir(), entry.file);
  if (!existsSync(file)) throw new Error(`model file ${file} is missing; run \`npm run models:detector\` to convert it from ${entry.source}`);
  return createDetector(name, createNodeRuntime({ threads: options.threads }), file, options);
}

export const loadNodeDetector = (options?: NodeDetectorOptions) => loadNodeDetectorNamed('centernet', options) as Promise<ObjectDetector>;
export const loadNodeCocoSsd = (options?: NodeDetectorOptions) => loadNodeDetectorNamed('coco-ssd', options) as Promise<CocoSsdDetector>;
export const loadNodeFaceDetector = (options?: NodeDetectorOptions) => loadNodeDetectorNamed('blazeface', options) as Promise<FaceDetector>;
export const loadNodeOpenImagesDetector = (options: NodeDetectorOptions & { answers?: DetectorOptions['openImagesAnswers'] } = {}) =>
  loadNodeDetectorNamed('open-images-ssd', { ...options, openImagesAnswers: options.answers }) as Promise<OpenImagesDetector>;

/** Every detector of the catalog, in its order (the COCO ones first: the eval reads them). */
export async function loadNodeDetectors(options: NodeDetectorOptions = {}): Promise<ConceptDetector[]> {
  const detectors: ConceptDetector[] = [];
  for (const { name } of DETECTORS) detectors.push(await loadNodeDetectorNamed(name, options));
  return detectors;
}
