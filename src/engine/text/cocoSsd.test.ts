import { describe, expect, it } from 'vitest';
import { decodeSsd, stretchedInputTensor } from './cocoSsd';

describe('COCO-SSD decoding', () => {
  it('decodes an anchor with zero encodings to the anchor itself, in image pixels, with TF label-map ids', () => {
    const anchors = Float32Array.from([0.25, 0.5, 0.75, 1.0]); // ymin, xmin, ymax, xmax
    const encodings = new Float32Array(4);
    const logits = new Float32Array(91).fill(-10);
    logits[17] = 2; // TF id 17 = cat
    logits[13] = 3; // TF id 13 = stop sign (the label map skips 12)
    const detections = decodeSsd(encodings, logits, anchors, 200, 100);
    expect(detections.map((d) => d.label)).toEqual(['stop sign', 'cat']);
    expect(detections[1].score).toBeCloseTo(1 / (1 + Math.exp(-2)));
    expect(detections[1].box).toEqual({ x0: 100, y0: 25, x1: 200, y1: 75 });
  });

  it('applies the box coder scales (10, 10, 5, 5) and drops scores under the floor', () => {
    const anchors = Float32Array.from([0.4, 0.4, 0.6, 0.6]);
    const encodings = Float32Array.from([10, 0, 5 * Math.log(2), 0]); // centre down one anchor height, twice as tall
    const logits = new Float32Array(91).fill(-10);
    logits[1] = 0;
    const [person] = decodeSsd(encodings, logits, anchors, 100, 100);
    expect(person.box.y0).toBeCloseTo(50);
    expect(person.box.y1).toBeCloseTo(90);
    expect(person.box.x0).toBeCloseTo(40);
    logits[1] = -4;
    expect(decodeSsd(encodings, logits, anchors, 100, 100, { minScore: 0.05 })).toEqual([]);
  });

  it('stretches the image over the whole square input', () => {
    const data = new Uint8Array(4 * 2 * 4).fill(90);
    const tensor = stretchedInputTensor({ width: 4, height: 2, data }, 10);
    expect(Math.min(...tensor)).toBeCloseTo(90);
  });
});
