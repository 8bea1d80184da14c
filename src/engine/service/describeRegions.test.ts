/**
 * describeRegions as a caller gets it from the EngineApi, in-process: real models on a real photo.
 * The descriptors are those the learn eval computes (src/engine/learn/describePhoto.ts).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeImage } from '../adapters/nodeImage';
import { loadNodeEngine } from '../adapters/ortNode';
import { loadNodeCocoSsd, loadNodeDetector } from '../adapters/textNode';
import type { SegmentationEngine } from '../engine';
import { APPEARANCE_LENGTH, boxMask, DETECTOR_CONCEPTS } from '../learn/descriptors';
import { COCO_CLASSES } from '../text/cocoClasses';
import type { RgbaImage } from '../types';
import { TextService } from '../worker/textService';
import { EngineService } from './engineService';

let chelsea: RgbaImage;
let engine: SegmentationEngine;
let service: EngineService;
beforeAll(async () => {
  chelsea = await decodeImage(readFileSync(new URL('../../../public/samples/chelsea.png', import.meta.url)));
  engine = await loadNodeEngine({ threads: 1, encoderPrecision: 'int8', decoderPrecision: 'int8' });
  const detectors = [
    { name: 'centernet', vocabulary: COCO_CLASSES, load: () => loadNodeDetector({ threads: 1 }) },
    { name: 'coco-ssd', vocabulary: COCO_CLASSES, load: () => loadNodeCocoSsd({ threads: 1 }) },
  ];
  service = new EngineService(engine, new TextService(engine, detectors), { backend: engine.backend, encoderModel: 'sam-encoder-int8@node-test' });
}, 120_000);
afterAll(() => engine?.release());

describe('describeRegions', () => {
  it("describes the cat as cat-like to the detectors and unlike a corner of the background to SAM's features", async () => {
    const { width, height } = chelsea;
    // The cat fills most of the photo; the top-left corner is the wall behind it.
    const { descriptors } = await service.describeRegions({
      image: chelsea,
      masks: [boxMask({ x0: 0.15 * width, y0: 0.05 * height, x1: 0.95 * width, y1: height }, width, height), boxMask({ x0: 0, y0: 0, x1: 40, y1: 40 }, width, height)],
    });
    expect(descriptors).toHaveLength(2);
    const [cat, corner] = descriptors;
    for (const d of descriptors) {
      expect(d.detectors).toHaveLength(DETECTOR_CONCEPTS.length);
      expect(d.appearance).toHaveLength(APPEARANCE_LENGTH);
      // COCO-SSD's backbone map pooled over the mask, from the same detector run.
      expect(d.backbone).toHaveLength(576);
      expect(Math.hypot(...d.sam)).toBeCloseTo(1, 4);
    }
    expect(cat.detectors[DETECTOR_CONCEPTS.indexOf('cat')]).toBeGreaterThan(0.3);
    expect(corner.detectors[DETECTOR_CONCEPTS.indexOf('cat')]).toBe(0);
    expect(cat.sam.reduce((s, v, i) => s + v * corner.sam[i], 0)).toBeLessThan(0.5);
  }, 120_000);

  it('describes one region after another on a photo from one detector run, the same as all at once, until the photo is forgotten', async () => {
    const { width, height } = chelsea;
    const cat = boxMask({ x0: 0.15 * width, y0: 0.05 * height, x1: 0.95 * width, y1: height }, width, height);
    const corner = boxMask({ x0: 0, y0: 0, x1: 40, y1: 40 }, width, height);
    const together = await service.describeRegions({ image: chelsea, imageId: 'chelsea-one-by-one', masks: [cat, corner] });
    // A person's next decision on the photo: its detectors and SAM cells are not computed again.
    const next = await service.describeRegions({ image: chelsea, imageId: 'chelsea-one-by-one', masks: [corner] });
    expect(next.timings.photoReused).toBe(true);
    expect(next.descriptors[0]).toEqual(together.descriptors[1]);
    await service.forget({ imageKey: 'chelsea-one-by-one' });
    const afresh = await service.describeRegions({ image: chelsea, imageId: 'chelsea-one-by-one', masks: [cat] });
    expect(afresh.timings.photoReused).toBe(false);
    expect(afresh.descriptors[0]).toEqual(together.descriptors[0]);
  }, 240_000);

  it('refuses a mask of another size than the photo', async () => {
    await expect(service.describeRegions({ image: chelsea, masks: [boxMask({ x0: 0, y0: 0, x1: 4, y1: 4 }, 10, 10)] })).rejects.toThrow(/mask is 10×10/);
  }, 120_000);
});
