import { describe, expect, it } from 'vitest';
import { LOW_RES_SIZE, modelFrame, toModelCoords } from '../../../src/engine/frame';
import { SHIFT_MODEL_PX, shiftFrameTensor, shiftLowResLogits, shiftPrompt, unshiftTokenLogits } from './shift';

const CELLS = SHIFT_MODEL_PX / 4;

describe('shift averaging geometry', () => {
  it('moves the preprocessed frame right and down by half a patch; the strip it leaves is padding', () => {
    const size = 32;
    const data = new Float32Array(3 * size * size).map((_, i) => i + 1);
    const shifted = shiftFrameTensor({ data, dims: [1, 3, size, size] });
    const at = (t: Float32Array, c: number, y: number, x: number) => t[c * size * size + y * size + x];
    expect(at(shifted.data, 2, 10 + SHIFT_MODEL_PX, 3 + SHIFT_MODEL_PX)).toBe(at(data, 2, 10, 3));
    expect(at(shifted.data, 0, SHIFT_MODEL_PX - 1, 20)).toBe(0);
    expect(at(shifted.data, 1, 20, SHIFT_MODEL_PX - 1)).toBe(0);
  });

  it('moves clicks and the box centre by exactly half a patch in the model frame, the fed-back mask with them', () => {
    const frame = modelFrame(640, 427);
    const mask = new Float32Array(LOW_RES_SIZE * LOW_RES_SIZE);
    mask[40 * LOW_RES_SIZE + 50] = 5;
    const moved = shiftPrompt({ points: [{ x: 100, y: 200, positive: true }], box: { x: 300, y: 150, width: 80, height: 60 }, maskInput: mask }, frame);
    const [x, y] = toModelCoords(frame, moved.points![0].x, moved.points![0].y);
    const [x0, y0] = toModelCoords(frame, 100, 200);
    expect(x - x0).toBeCloseTo(SHIFT_MODEL_PX, 9);
    expect(y - y0).toBeCloseTo(SHIFT_MODEL_PX, 9);
    expect(moved.box).toMatchObject({ width: 80, height: 60 });
    expect(toModelCoords(frame, moved.box!.x, 0)[0] - toModelCoords(frame, 300, 0)[0]).toBeCloseTo(SHIFT_MODEL_PX, 9);
    expect(moved.maskInput![(40 + CELLS) * LOW_RES_SIZE + 50 + CELLS]).toBe(5);
    expect(moved.maskInput![0]).toBeLessThan(0);
  });

  it('an answer of the shifted view maps back cell for cell; where that view had no pixels the photo’s own answer stands', () => {
    const area = LOW_RES_SIZE * LOW_RES_SIZE;
    const answer = new Float32Array(2 * area).map((_, i) => Math.sin(i));
    const own = new Float32Array(2 * area).fill(7);
    const back = unshiftTokenLogits(new Float32Array([...shiftLowResLogits(answer.subarray(0, area)), ...shiftLowResLogits(answer.subarray(area))]), own);
    for (const [token, r, c] of [[0, 0, 0], [1, 100, 200], [1, LOW_RES_SIZE - CELLS - 1, LOW_RES_SIZE - CELLS - 1]]) {
      const i = token * area + r * LOW_RES_SIZE + c;
      expect(back[i]).toBe(answer[i]);
    }
    expect(back[area + (LOW_RES_SIZE - 1) * LOW_RES_SIZE + 5]).toBe(7);
    expect(back[10 * LOW_RES_SIZE + LOW_RES_SIZE - 1]).toBe(7);
  });
});
