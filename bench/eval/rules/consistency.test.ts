import { describe, expect, it } from 'vitest';
import { modelFrame } from '../../../src/engine/frame';
import { logitAtPixel } from '../../../src/engine/upsample';
import { cellAtPixel, clickAgreement, correctAround, mostConsistent } from './consistency';

const frame = modelFrame(1024, 1024); // 4 image pixels per low-res cell, no padding
const AREA = 256 * 256;

/** Logits +10 inside the cell rectangle [x0, x1) × [y0, y1), −10 elsewhere. */
function rect(x0: number, y0: number, x1: number, y1: number, into: Float32Array = new Float32Array(AREA).fill(-10)): Float32Array {
  for (let y = y0; y < y1; y++) into.fill(10, y * 256 + x0, y * 256 + x1);
  return into;
}

describe('clickAgreement and mostConsistent', () => {
  const mask = rect(10, 10, 20, 20);
  it('counts positive clicks inside and negative clicks outside, and notes the latest', () => {
    const a = clickAgreement(mask, frame, [
      { x: 60, y: 60 },
      { x: 200, y: 200, positive: false },
      { x: 300, y: 300 },
    ]);
    expect(a).toEqual({ satisfied: 2, latest: false });
  });

  it('keeps the first candidate unless another agrees strictly better', () => {
    expect(mostConsistent([{ satisfied: 2, latest: true }, { satisfied: 2, latest: true }])).toBe(0);
    expect(mostConsistent([{ satisfied: 2, latest: false }, { satisfied: 2, latest: true }])).toBe(1);
    expect(mostConsistent([{ satisfied: 2, latest: true }, { satisfied: 3, latest: false }])).toBe(1);
  });
});

describe('correctAround', () => {
  it('adds only the missed part around a positive click, keeping the rest of the mask', () => {
    const base = rect(10, 10, 20, 20);
    // The alternative covers the missed part (20..24) but also loses part of the mask and adds a far blob.
    const alternative = rect(14, 10, 24, 20, rect(100, 100, 140, 140));
    const click = { x: 22 * 4, y: 15 * 4 };
    const out = correctAround(base, alternative, frame, click)!;
    expect(logitAtPixel(out, frame, click.x, click.y)).toBeGreaterThan(0);
    expect(out[15 * 256 + 11]).toBeGreaterThan(0); // the part the alternative lost is kept
    expect(out[120 * 256 + 120]).toBeLessThan(0); // the far blob is not taken
  });

  it('never replaces the whole mask: the change stays near the click', () => {
    // The mask covers a large square; the alternative is empty. A negative click 2 cells inside the
    // left border may remove only what lies within the window around it.
    const base = rect(10, 10, 200, 200);
    const alternative = new Float32Array(AREA).fill(-10);
    const click = { x: 12 * 4 + 1, y: 100 * 4 + 1, positive: false };
    const out = correctAround(base, alternative, frame, click)!;
    expect(logitAtPixel(out, frame, click.x, click.y)).toBeLessThan(0);
    expect(out[100 * 256 + 100]).toBeGreaterThan(0);
    let removed = 0;
    for (let i = 0; i < AREA; i++) if (base[i] > 0 && out[i] <= 0) removed++;
    expect(removed).toBeLessThan(200);
  });

  it('returns null when the alternative agrees with the mask at the click', () => {
    const base = rect(10, 10, 20, 20);
    expect(correctAround(base, base, frame, { x: 200, y: 200 })).toBeNull();
  });

  it('maps pixels to the nearest cell inside the image part of the grid', () => {
    expect(cellAtPixel(frame, 1023, 1023)).toEqual({ cx: 255, cy: 255 });
    const wide = modelFrame(2048, 512); // the grid's lower half is padding
    expect(cellAtPixel(wide, 2047, 511).cy).toBeLessThan(64);
  });
});
