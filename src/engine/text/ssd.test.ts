import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { OPEN_IMAGES_SSD_ANCHORS } from './openImagesSsd';
import { decodeSsdOutputs, ssdAnchors } from './ssd';

const cocoSsdModel = join(import.meta.dirname, '..', '..', '..', 'public', 'models', 'detector-coco-ssd.onnx');

describe('SSD anchors (MediaPipe SsdAnchorsCalculator)', () => {
  it('gives 3 anchors per cell on the 19×19 layer and 6 on the 10×10, 5×5, 3×3, 2×2 and 1×1 layers: 1917', () => {
    const anchors = ssdAnchors(OPEN_IMAGES_SSD_ANCHORS);
    expect(anchors.length / 4).toBe(19 * 19 * 3 + (10 * 10 + 5 * 5 + 3 * 3 + 2 * 2 + 1) * 6);
    // The first anchor: scale 0.1, ratio 1, centred on the first of 19 cells.
    const centre = 0.5 / 19;
    expect(Array.from(anchors.slice(0, 4))).toEqual([centre - 0.05, centre - 0.05, centre + 0.05, centre + 0.05].map(Math.fround));
  });

  // TF's object detection API generates SSD-MobileNetV2's anchors with the same options; COCO-SSD's
  // graph carries them as a constant (its converted ONNX returns it): the same 1917 boxes, in order.
  it.runIf(existsSync(cocoSsdModel))("equal, with the Open Images SSD's options, the anchors TF built into COCO-SSD's graph", async () => {
    const session = await ort.InferenceSession.create(cocoSsdModel, { intraOpNumThreads: 1 });
    const out = await session.run({ image: new ort.Tensor('float32', new Float32Array(300 * 300 * 3), [1, 300, 300, 3]) }, ['Postprocessor/ExpandDims']);
    await session.release();
    const tf = out['Postprocessor/ExpandDims'].data as Float32Array;
    const ours = ssdAnchors(OPEN_IMAGES_SSD_ANCHORS);
    expect(ours.length).toBe(tf.length);
    let worst = 0;
    for (let i = 0; i < tf.length; i++) worst = Math.max(worst, Math.abs(tf[i] - ours[i]));
    expect(worst).toBeLessThan(1e-6);
  });
});

describe('decodeSsdOutputs', () => {
  const columns = [undefined, { classIndex: 0, label: 'footwear' as const }, { classIndex: 1, label: 'desk' as const }];

  it('decodes zero encodings to the anchor, scales by 10, 10, 5, 5 with an exponential size, and skips background', () => {
    const anchors = Float32Array.from([0.4, 0.4, 0.6, 0.6, 0.0, 0.0, 0.5, 0.5]);
    const encodings = Float32Array.from([0, 0, 0, 0, 10, 0, 5 * Math.log(2), 0]);
    const logits = Float32Array.from([5, 1, -9, /* anchor 2 */ 5, -9, 2]);
    const found = decodeSsdOutputs(encodings, logits, anchors, 200, 100, columns, { defaultNmsIou: 0.5 });
    expect(found.map((d) => d.label)).toEqual(['desk', 'footwear']);
    const footwear = found[1];
    expect(footwear.score).toBeCloseTo(1 / (1 + Math.exp(-1)));
    const { x0, y0, x1, y1 } = footwear.box;
    [x0, y0, x1, y1].forEach((v, i) => expect(v).toBeCloseTo([80, 40, 120, 60][i], 4));
    // Anchor 2: centre moved down by one anchor height (0.5), twice as tall, clamped to the image.
    const box = found[0].box;
    expect(box.y0).toBeCloseTo(25);
    expect(box.y1).toBeCloseTo(100);
    expect(box.x1).toBeCloseTo(100);
  });

  it('suppresses overlapping boxes of one class only, at the given IoU', () => {
    const anchors = Float32Array.from([0.1, 0.1, 0.5, 0.5, 0.12, 0.1, 0.52, 0.5]);
    const encodings = new Float32Array(8);
    const logits = Float32Array.from([-9, 3, 2, -9, 2, -9]);
    const found = decodeSsdOutputs(encodings, logits, anchors, 100, 100, columns, { defaultNmsIou: 0.5 });
    expect(found.map((d) => [d.label, d.score > 0.9])).toEqual([
      ['footwear', true],
      ['desk', false],
    ]);
    expect(decodeSsdOutputs(encodings, logits, anchors, 100, 100, columns, { defaultNmsIou: 0.5, nmsIou: 0.95 })).toHaveLength(3);
  });
});
