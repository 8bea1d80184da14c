import { describe, expect, it } from 'vitest';
import { modelFrame } from './frame';
import { logitAtPixel } from './upsample';
import { mirrorImage, mirrorLowResLogits, mirrorPoint, mirrorTokenLogits } from './mirror';

describe('mirror geometry', () => {
  it('mirrors a photo left–right, and twice gives it back', () => {
    const image = { width: 3, height: 2, data: Uint8Array.from({ length: 24 }, (_, i) => i) };
    const mirrored = mirrorImage(image);
    expect(Array.from(mirrored.data.subarray(0, 4))).toEqual([8, 9, 10, 11]);
    expect(mirrorImage(mirrored).data).toEqual(image.data);
  });

  it('puts a click and the logits under it at the mirrored place, so a mask read at a click reads the same mirrored', () => {
    const frame = modelFrame(640, 480);
    // A logit ramp that rises to the right: mirrored, it must fall to the right.
    const logits = new Float32Array(256 * 256);
    for (let r = 0; r < 256; r++) for (let c = 0; c < 256; c++) logits[r * 256 + c] = c / 10 - 5;
    const mirrored = mirrorLowResLogits(logits, frame);
    for (const click of [{ x: 100, y: 50 }, { x: 600, y: 400 }, { x: 320, y: 240 }]) {
      const there = mirrorPoint(click, frame);
      expect(mirrorPoint(there, frame).x).toBeCloseTo(click.x, 6);
      expect(logitAtPixel(mirrored, frame, there.x, there.y)).toBeCloseTo(logitAtPixel(logits, frame, click.x, click.y), 0);
    }
    // Its own inverse inside the image's cells; the padding stays background.
    const back = mirrorLowResLogits(mirrored, frame);
    expect(back[10 * 256 + 40]).toBeCloseTo(logits[10 * 256 + 40], 5);
    expect(mirrored[10 * 256 + 255]).toBeLessThan(0);
    // Stacked tokens are mirrored one by one.
    const twoTokens = new Float32Array(2 * 256 * 256);
    twoTokens.set(logits, 256 * 256);
    expect(mirrorTokenLogits(twoTokens, frame).subarray(256 * 256)).toEqual(mirrored);
  });
});
