import { describe, expect, it } from 'vitest';
import { boxIoU, decodeDetections, detectorInputTensor, letterboxFor } from './detector';

describe('detector geometry', () => {
  it('letterboxes a landscape image centred in the square input', () => {
    expect(letterboxFor(1024, 512)).toEqual({ scale: 0.5, dx: 0, dy: 128 });
    expect(letterboxFor(300, 600)).toEqual({ scale: 512 / 600, dx: 128, dy: 0 });
  });

  it('fills the padding with zeros and the image area with its pixels', () => {
    const data = new Uint8Array(4 * 2 * 4).fill(200);
    const { tensor, letterbox } = detectorInputTensor({ width: 4, height: 2, data });
    expect(letterbox).toEqual({ scale: 128, dx: 0, dy: 128 });
    expect(tensor[0]).toBe(0); // top-left corner is padding
    expect(tensor[(256 * 512 + 256) * 3]).toBeCloseTo(200); // centre is image
  });

  it('maps raw detections back to image pixels, drops low scores, and suppresses same-class duplicates', () => {
    const letterbox = letterboxFor(1024, 512); // scale 0.5, dy 128
    const raw = Float32Array.from([
      // x1, y1, x2, y2 (input frame), score, class
      100, 178, 200, 278, 0.9, 15,
      102, 180, 200, 278, 0.6, 15, // duplicate cat
      102, 180, 200, 278, 0.5, 16, // same box, another class: kept
      0, 0, 10, 10, 0.01, 0, // below the score floor
    ]);
    const detections = decodeDetections(raw, 1024, 512, letterbox);
    expect(detections.map((d) => [d.label, d.score])).toEqual([
      ['cat', expect.closeTo(0.9, 5)],
      ['dog', expect.closeTo(0.5, 5)],
    ]);
    expect(detections[0].box).toEqual({ x0: 200, y0: 100, x1: 400, y1: 300 });
  });

  it('computes box IoU', () => {
    expect(boxIoU({ x0: 0, y0: 0, x1: 10, y1: 10 }, { x0: 5, y0: 0, x1: 15, y1: 10 })).toBeCloseTo(1 / 3);
    expect(boxIoU({ x0: 0, y0: 0, x1: 1, y1: 1 }, { x0: 2, y0: 2, x1: 3, y1: 3 })).toBe(0);
  });
});
