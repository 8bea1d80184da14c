import { describe, expect, it } from 'vitest';
import { LOW_RES_SIZE, modelFrame } from '../frame';
import { ExploredCells, lowResBox } from './lowRes';

describe('lowResBox', () => {
  it('maps the positive cells inside the image to a box in image pixels, ignoring the padding', () => {
    // 2048×1024: scale 0.5, the image fills the top half of the frame (128 of the 256 rows).
    const frame = modelFrame(2048, 1024);
    const logits = new Float32Array(LOW_RES_SIZE * LOW_RES_SIZE).fill(-1);
    logits[10 * LOW_RES_SIZE + 20] = 1; // cell (20, 10) = model pixels [80, 84) × [40, 44)
    logits[12 * LOW_RES_SIZE + 30] = 1;
    logits[200 * LOW_RES_SIZE + 40] = 1; // in the padding below the image
    expect(lowResBox(logits, frame)).toEqual({ x0: 160, y0: 80, x1: 248, y1: 104 });
  });

  it('is undefined for an empty mask', () => {
    expect(lowResBox(new Float32Array(LOW_RES_SIZE * LOW_RES_SIZE).fill(-1), modelFrame(100, 100))).toBeUndefined();
  });
});

describe('ExploredCells', () => {
  it('marks the positive cells inside the image and answers for the image pixels they cover', () => {
    // 2048×1024: one cell is 8×8 image pixels; the image fills the top 128 of the 256 rows.
    const frame = modelFrame(2048, 1024);
    const explored = new ExploredCells(frame);
    const logits = new Float32Array(LOW_RES_SIZE * LOW_RES_SIZE).fill(-1);
    logits[10 * LOW_RES_SIZE + 20] = 1; // image pixels [160, 168) × [80, 88)
    logits[200 * LOW_RES_SIZE + 40] = 1; // in the padding: not part of the image
    explored.add(logits);
    expect(explored.has(160, 80)).toBe(true);
    expect(explored.has(167.9, 87.9)).toBe(true);
    expect(explored.has(168, 80)).toBe(false);
    expect(explored.has(160, 79.9)).toBe(false);
    expect(explored.has(320, 1023)).toBe(false);
  });

  it('keeps what earlier masks marked', () => {
    const frame = modelFrame(256, 256);
    const explored = new ExploredCells(frame);
    const first = new Float32Array(LOW_RES_SIZE * LOW_RES_SIZE).fill(-1);
    first[0] = 1;
    const second = new Float32Array(LOW_RES_SIZE * LOW_RES_SIZE).fill(-1);
    second[LOW_RES_SIZE * LOW_RES_SIZE - 1] = 1;
    explored.add(first);
    explored.add(second);
    expect(explored.has(0, 0)).toBe(true);
    expect(explored.has(255.5, 255.5)).toBe(true);
    expect(explored.has(128, 128)).toBe(false);
  });
});
