import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeImage } from '../adapters/nodeImage';
import { loadNodeCocoSsd } from '../adapters/textNode';
import type { CocoSsdDetector } from '../text/cocoSsd';
import { sharedPath } from '../../../test/support/sharedData';
import { backboneDescriptor, boxMask } from './descriptors';
import { detectorsForDescriptors } from './describePhoto';

/**
 * The provisioned COCO-SSD gives its backbone map from the run that finds its boxes, and the map
 * tells an object from its surroundings: the `backbone` descriptor is real data, not zeros.
 */
describe('COCO-SSD backbone features', () => {
  let detector: CocoSsdDetector;
  beforeAll(async () => {
    detector = await loadNodeCocoSsd({ threads: 1 });
  });
  afterAll(async () => {
    await detector.release();
  });

  it('come with the same detections as detect(), as a 19×19×576 grid', async () => {
    const chelsea = await decodeImage(readFileSync(sharedPath('samples/chelsea.png')));
    const run = await detector.detectWithFeatures(chelsea, { minScore: 0.05 });
    expect(run.detections).toEqual(await detector.detect(chelsea, { minScore: 0.05 }));
    expect(run.features).toMatchObject({ rows: 19, columns: 19, channels: 576 });
    expect(run.features!.data).toHaveLength(19 * 19 * 576);
    const described = await detectorsForDescriptors(chelsea, [detector]);
    expect(described.features?.data).toEqual(run.features!.data);
  });

  it('are closer between the cat and its own middle than between the cat and the cup in another photo', async () => {
    const chelsea = await decodeImage(readFileSync(sharedPath('samples/chelsea.png')));
    const coffee = await decodeImage(readFileSync(sharedPath('samples/coffee.png')));
    const catRun = await detector.detectWithFeatures(chelsea, { minScore: 0.3 });
    const cupRun = await detector.detectWithFeatures(coffee, { minScore: 0.3 });
    const cat = catRun.detections.find((d) => d.label === 'cat')!;
    const cup = cupRun.detections.find((d) => d.label === 'cup')!;
    const catVector = backboneDescriptor(catRun.features, boxMask(cat.box, chelsea.width, chelsea.height));
    // The same cat, its box shrunk to the middle: the same object seen by fewer cells.
    const middle = { x0: (cat.box.x0 * 3 + cat.box.x1) / 4, y0: (cat.box.y0 * 3 + cat.box.y1) / 4, x1: (cat.box.x0 + cat.box.x1 * 3) / 4, y1: (cat.box.y0 + cat.box.y1 * 3) / 4 };
    const catMiddle = backboneDescriptor(catRun.features, boxMask(middle, chelsea.width, chelsea.height));
    const cupVector = backboneDescriptor(cupRun.features, boxMask(cup.box, coffee.width, coffee.height));
    const cosine = (a: number[], b: number[]) => a.reduce((s, v, i) => s + v * b[i], 0) / Math.hypot(...a) / Math.hypot(...b);
    expect(Math.max(...catVector)).toBeGreaterThan(0);
    expect(cosine(catVector, catMiddle)).toBeGreaterThan(cosine(catVector, cupVector));
  });
});
