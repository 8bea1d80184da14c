import { describe, expect, it } from 'vitest';
import { bestToken, rankTokens, stabilityScore, type TokenOutputs } from './candidates';
import { modelFrame } from './frame';

const frame = modelFrame(1024, 1024); // the whole 256 grid is image
const AREA = 256 * 256;

/** Four tokens, each a square mask of logits ±`amplitude` of the given side, top-left anchored. */
function tokens(sides: number[], iou: number[], amplitude = 10): TokenOutputs {
  const logits = new Float32Array(sides.length * AREA).fill(-amplitude);
  sides.forEach((side, t) => {
    for (let y = 0; y < side; y++) logits.fill(amplitude, t * AREA + y * 256, t * AREA + y * 256 + side);
  });
  return { logits, iou: Float32Array.from(iou), tokens: sides.length };
}

describe('bestToken', () => {
  it('takes the multimask token with the highest predicted IoU for an ambiguous single click', () => {
    expect(bestToken(tokens([50, 40, 60, 80], [0.99, 0.7, 0.9, 0.8]), frame, { ambiguous: true })).toBe(2);
  });

  it('takes the single-mask token 0 for unambiguous prompts when it is stable', () => {
    expect(bestToken(tokens([50, 40, 60, 80], [0.5, 0.7, 0.9, 0.8]), frame, { ambiguous: false })).toBe(0);
  });

  it('falls back to the best multimask token when token 0 is unstable', () => {
    const t = tokens([50, 40, 60, 80], [0.95, 0.7, 0.9, 0.8]);
    // Make token 0's logits hover around the threshold over a large area.
    for (let i = 0; i < 100 * 256; i++) t.logits[i] = i % 2 ? 0.01 : -0.01;
    expect(stabilityScore(t.logits.subarray(0, AREA), { width: 256, height: 256 })).toBeLessThan(0.98);
    expect(bestToken(t, frame, { ambiguous: false })).toBe(2);
  });
});

describe('rankTokens', () => {
  it('puts the single best first, then the rest by predicted IoU', () => {
    expect(rankTokens(tokens([50, 30, 70, 100], [0.5, 0.7, 0.9, 0.8]), frame, { ambiguous: true }, true)).toEqual([2, 3, 1, 0]);
  });

  it('drops near-duplicate and empty candidates', () => {
    // Token 0 duplicates token 2 (IoU 0.98), token 3 is empty.
    expect(rankTokens(tokens([99, 50, 100, 0], [0.6, 0.7, 0.9, 0.95]), frame, { ambiguous: true }, true)).toEqual([2, 1]);
  });

  it('returns only the best without multimask', () => {
    expect(rankTokens(tokens([50, 30, 70, 100], [0.5, 0.7, 0.9, 0.8]), frame, { ambiguous: false }, false)).toEqual([0]);
  });

  it('ignores the padding area of the 256 grid when comparing masks', () => {
    const wide = modelFrame(1024, 256); // only the top 64 rows of the grid are image
    const t = tokens([0, 0, 10, 20], [0.5, 0.9, 0.1, 0.1]);
    t.logits.fill(10, 0, 64 * 256); // token 0: the 64 image rows
    t.logits.fill(10, AREA, AREA + 200 * 256); // token 1: the same plus padding rows
    // Tokens 0 and 1 differ only below row 64 (padding): duplicates.
    expect(rankTokens(t, wide, { ambiguous: true }, true)).not.toContain(0);
  });
});

describe('rankingScore', () => {
  it('prefers a stable mask over a slightly higher predicted IoU with logits hovering at the threshold', () => {
    const t = tokens([50, 40, 60, 80], [0.5, 0.9, 0.95, 0.7]);
    // Token 2: most of its area barely positive → unstable.
    for (let y = 0; y < 60; y++) t.logits.fill(0.01, 2 * AREA + y * 256 + 10, 2 * AREA + y * 256 + 60);
    expect(bestToken(t, frame, { ambiguous: true })).toBe(1);
  });
});

describe('many clicks', () => {
  it('keep token 0 even when it is unstable', () => {
    const t = tokens([50, 40, 60, 80], [0.95, 0.7, 0.9, 0.8]);
    for (let i = 0; i < 100 * 256; i++) t.logits[i] = i % 2 ? 0.01 : -0.01;
    expect(bestToken(t, frame, { ambiguous: false, unstableFallback: false })).toBe(0);
    expect(bestToken(t, frame, { ambiguous: false, unstableFallback: true })).toBe(2);
  });
});
