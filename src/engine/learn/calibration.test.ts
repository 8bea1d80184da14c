import { describe, expect, it } from 'vitest';
import { applyBeta, applyPlatt, expectedCalibrationError, fitBeta, fitLogistic, fitPlatt } from './calibration';

describe('calibration', () => {
  it('Platt scaling fitted on over-confident decisions brings the error down', () => {
    // Said 0.9, right 60 % of the time; said 0.6, right 20 %.
    const decisions = [
      ...Array.from({ length: 100 }, (_, i) => ({ raw: 0.9, correct: i % 5 < 3 })),
      ...Array.from({ length: 100 }, (_, i) => ({ raw: 0.6, correct: i % 5 === 0 })),
    ];
    const before = expectedCalibrationError(decisions.map((d) => ({ probability: d.raw, correct: d.correct }))).ece;
    const map = fitPlatt(decisions);
    const after = expectedCalibrationError(decisions.map((d) => ({ probability: applyPlatt(map, d.raw), correct: d.correct }))).ece;
    expect(before).toBeGreaterThan(0.3);
    expect(after).toBeLessThan(0.05);
    expect(applyPlatt(map, 0.9)).toBeCloseTo(0.6, 1);
  });

  it('a second opinion on the decided class is weighed as the decisions say: equal scores, told apart by it', () => {
    // The detector said 0.5 every time; right when the learned classes also thought so (0.8), wrong when they did not (0.1).
    const decisions = [
      ...Array.from({ length: 40 }, (_, i) => ({ raw: 0.5, evidence: 0.8, correct: i % 10 < 8 })),
      ...Array.from({ length: 40 }, (_, i) => ({ raw: 0.5, evidence: 0.1, correct: i % 10 < 1 })),
    ];
    const map = fitPlatt(decisions);
    expect(map.evidence).toBeGreaterThan(0);
    expect(applyPlatt(map, 0.5, 0.8)).toBeGreaterThan(0.65);
    expect(applyPlatt(map, 0.5, 0.1)).toBeLessThan(0.25);
    // Without a second opinion the map reads the score alone.
    expect(applyPlatt(map, 0.5)).toBeCloseTo(applyPlatt({ slope: map.slope, offset: map.offset }, 0.5), 9);
  });

  it('decisions without a second opinion fit the map they always did', () => {
    const decisions = Array.from({ length: 30 }, (_, i) => ({ raw: 0.7, correct: i % 3 > 0 }));
    const map = fitPlatt(decisions);
    expect(map.evidence).toBeUndefined();
    expect(applyPlatt(map, 0.7, 0.99)).toBe(applyPlatt(map, 0.7));
  });

  it('with no decisions the map is the identity', () => {
    const map = fitPlatt([]);
    expect(applyPlatt(map, 0.73)).toBeCloseTo(0.73, 6);
  });

  it('a weighted datum counts as that many copies of it', () => {
    const data = [0.2, 0.5, 0.9, 1.4].map((v, i) => ({ x: [v, 1], correct: i % 2 === 0 }));
    const weighted = fitLogistic([...data, { ...data[1], weight: 3 }], [1, 0], 5);
    const copied = fitLogistic([...data, data[1], data[1], data[1]], [1, 0], 5);
    weighted.forEach((w, j) => expect(w).toBeCloseTo(copied[j], 9));
  });

  it('beta calibration: the identity with no decisions, Platt where a decreasing map would be fitted', () => {
    expect(applyBeta(fitBeta([]), 0.73)).toBeCloseTo(0.73, 6);
    // Right at 0.2 and 0.9, wrong at 0.5: a beta map would dip in the middle and reorder proposals.
    const dipping = [0.2, 0.9, 0.5].flatMap((raw, k) => Array.from({ length: 200 }, () => ({ raw, correct: k < 2 })));
    const map = fitBeta(dipping);
    expect(map.a).toBeCloseTo(map.b, 12);
    expect(applyBeta(map, 0.5)).toBeCloseTo(applyPlatt(fitPlatt(dipping), 0.5), 9);
  });

  it('ECE weighs each bin by its share', () => {
    const { ece, bins } = expectedCalibrationError([
      { probability: 0.95, correct: true },
      { probability: 0.95, correct: false },
      { probability: 0.15, correct: false },
      { probability: 0.15, correct: false },
    ]);
    // Bin 0.9–1: |0.95 − 0.5| × 1/2; bin 0.1–0.2: |0.15 − 0| × 1/2.
    expect(ece).toBeCloseTo(0.45 / 2 + 0.15 / 2, 6);
    expect(bins[9].count).toBe(2);
  });
});
