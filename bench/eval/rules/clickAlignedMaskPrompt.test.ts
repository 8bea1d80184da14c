import { describe, expect, it } from 'vitest';
import { CLICK_RADIUS_CELLS, CLICK_LOGIT, clickAlignedMaskPrompt } from './clickAlignedMaskPrompt';
import { logitAtPixel } from '../../../src/engine/upsample';
import { LOW_RES_SIZE, modelFrame } from '../../../src/engine/frame';

// 256×256: resized ×4 into the model frame, so pixel (x, y) sits exactly on the centre of cell (x, y).
const frame = modelFrame(256, 256);
const at = (logits: Float32Array, r: number, c: number) => logits[r * LOW_RES_SIZE + c];

describe('clickAlignedMaskPrompt', () => {
  it('makes the mask prompt undecided around a positive click it contradicts, within one encoder patch, and nothing else', () => {
    const previous = new Float32Array(LOW_RES_SIZE * LOW_RES_SIZE).fill(-3);
        const aligned = clickAlignedMaskPrompt(previous, frame, [{ x: 100, y: 100, positive: true }]);
    expect(at(aligned, 100, 100)).toBe(CLICK_LOGIT);
    expect(at(aligned, 100, 100 + CLICK_RADIUS_CELLS)).toBe(CLICK_LOGIT);
    expect(at(aligned, 100, 100 + CLICK_RADIUS_CELLS + 1)).toBe(-3);
    expect(at(aligned, 102, 102)).toBe(-3); // outside the disk, inside its bounding square
    let changed = 0;
    for (let i = 0; i < aligned.length; i++) if (aligned[i] !== previous[i]) changed++;
    expect(changed).toBe(13); // the cells of a disk of radius 2
    expect(logitAtPixel(aligned, frame, 100, 100)).toBe(0);
  });

  it('lowers the logits around a negative click to undecided and keeps a vote that already agrees', () => {
    const previous = new Float32Array(LOW_RES_SIZE * LOW_RES_SIZE).fill(5);
    previous[100 * LOW_RES_SIZE + 101] = -20;
    const aligned = clickAlignedMaskPrompt(previous, frame, [{ x: 100, y: 100, positive: false }]);
    expect(at(aligned, 100, 100)).toBe(-CLICK_LOGIT);
    expect(at(aligned, 100, 101)).toBe(-20);
    expect(at(aligned, 100, 103)).toBe(5);
    expect(logitAtPixel(aligned, frame, 100, 100)).toBeLessThanOrEqual(0);
  });

  it('places the disk through the model frame of a non-square photo and leaves the input untouched', () => {
    // 600×400: resized to 1024×683, so image x 300 → model x ≈ 512 → cell ≈ 128.
    const wide = modelFrame(600, 400);
    const previous = new Float32Array(LOW_RES_SIZE * LOW_RES_SIZE).fill(-4);
    const aligned = clickAlignedMaskPrompt(previous, wide, [{ x: 300, y: 200 }]);
    expect(logitAtPixel(aligned, wide, 300, 200)).toBe(CLICK_LOGIT);
    expect(logitAtPixel(aligned, wide, 320, 200)).toBe(-4);
    expect(previous.every((v) => v === -4)).toBe(true);
  });
});
