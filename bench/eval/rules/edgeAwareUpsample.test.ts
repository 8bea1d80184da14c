import { describe, expect, it } from 'vitest';
import { edgeAwareLogitsToMask } from './edgeAwareUpsample';
import { modelFrame } from '../../../src/engine/frame';
import type { RgbaImage } from '../../../src/engine/types';
import { upsampleLogitsToMask } from '../../../src/engine/upsample';

// 1024×64: the model frame is the image itself, so one logit cell covers 4×4 pixels.
const width = 1024;
const height = 64;
const frame = modelFrame(width, height);

function photo(edgeX: number | null): RgbaImage {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const p = (y * width + x) * 4;
      const left = edgeX === null || x < edgeX;
      data.set(left ? [200, 40, 40, 255] : [40, 40, 200, 255], p);
    }
  }
  return { width, height, data };
}

/** Logits positive up to cell column `lastPositive`, negative after: the bilinear boundary falls between two cell centres. */
function stepLogits(lastPositive: number): Float32Array {
  const logits = new Float32Array(256 * 256).fill(-6);
  for (let r = 0; r < 256; r++) logits.fill(6, r * 256, r * 256 + lastPositive + 1);
  return logits;
}

const firstOffColumn = (mask: { data: Uint8Array }, y: number) => {
  for (let x = 0; x < width; x++) if (!mask.data[y * width + x]) return x;
  return width;
};

describe('edgeAwareLogitsToMask', () => {
  it('moves the boundary onto the photo edge inside the cell the logits leave undecided', () => {
    // Cell 127 covers pixels 508–511; the bilinear crossing is at pixel 508, the photo's edge at 510.
    const logits = stepLogits(126);
    const image = photo(510);
    const bilinear = upsampleLogitsToMask(logits, frame);
    const guided = edgeAwareLogitsToMask(logits, frame, image);
    for (const y of [0, 31, 63]) {
      expect(firstOffColumn(bilinear, y)).toBe(508);
      expect(firstOffColumn(guided, y)).toBe(510);
    }
  });

  it('keeps the bilinear answer on a photo without edges', () => {
    const logits = stepLogits(126);
    const guided = edgeAwareLogitsToMask(logits, frame, photo(null));
    expect(Array.from(guided.data)).toEqual(Array.from(upsampleLogitsToMask(logits, frame).data));
  });

  it('leaves pixels far from the boundary alone, whatever their colour', () => {
    // A blue stripe well inside the positive region: no cell near it is negative, so it stays in.
    const logits = stepLogits(200);
    const image = photo(null);
    for (let y = 0; y < height; y++) for (let x = 100; x < 120; x++) image.data.set([40, 40, 200], (y * width + x) * 4);
    const guided = edgeAwareLogitsToMask(logits, frame, image);
    expect(firstOffColumn(guided, 10)).toBe(firstOffColumn(upsampleLogitsToMask(logits, frame), 10));
    expect(guided.data[10 * width + 110]).toBe(1);
  });
});
