/** What the text-prompt tests run on: the real SAM engine and object detector (one thread each) and two sample photos. */
import { readFileSync } from 'node:fs';
import { decodeImage } from '../../src/engine/adapters/nodeImage';
import { loadNodeEngine } from '../../src/engine/adapters/ortNode';
import { loadNodeDetector } from '../../src/engine/adapters/textNode';
import type { SegmentationEngine } from '../../src/engine/engine';
import type { ObjectDetector } from '../../src/engine/text/detector';
import type { RgbaImage } from '../../src/engine/types';
import { sharedPath } from './sharedData';

export interface TextModels {
  engine: SegmentationEngine;
  detector: ObjectDetector;
  chelsea: RgbaImage;
  coffee: RgbaImage;
}

export async function loadTextModels(): Promise<TextModels> {
  return {
    engine: await loadNodeEngine({ threads: 1 }),
    detector: await loadNodeDetector({ threads: 1 }),
    chelsea: await decodeImage(readFileSync(sharedPath('samples/chelsea.png'))),
    coffee: await decodeImage(readFileSync(sharedPath('samples/coffee.png'))),
  };
}

export async function releaseTextModels(models: Pick<TextModels, 'engine' | 'detector'>): Promise<void> {
  await models.engine.release();
  await models.detector.release();
}
