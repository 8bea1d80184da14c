import { describe, expect, it } from 'vitest';
import { applyPlatt, calibrate, fitPlatt } from './calibration';

describe('Platt calibration', () => {
  it('leaves a detector without parameters as it scores', () => {
    expect(calibrate('unknown-detector', 0.42, {})).toBe(0.42);
    expect(calibrate('x', 0.42, { x: { a: 1, b: 0 } })).toBeCloseTo(0.42);
  });

  it('recovers the parameters that generated the outcomes', () => {
    // Deterministic "data": at each score, the share of positives is exactly σ(2·logit(s) − 1).
    const truth = { a: 2, b: -1 };
    const samples: { score: number; positive: boolean }[] = [];
    for (let i = 1; i < 20; i++) {
      const score = i / 20;
      const p = applyPlatt(score, truth);
      const positives = Math.round(p * 200);
      for (let k = 0; k < 200; k++) samples.push({ score, positive: k < positives });
    }
    const fitted = fitPlatt(samples);
    expect(fitted.a).toBeCloseTo(2, 1);
    expect(fitted.b).toBeCloseTo(-1, 1);
  });

  it('is monotone: a higher raw score never gets a lower calibrated one', () => {
    const parameters = { a: 1.7, b: 0.3 };
    let previous = 0;
    for (let s = 0.01; s < 1; s += 0.01) {
      const p = applyPlatt(s, parameters);
      expect(p).toBeGreaterThanOrEqual(previous);
      previous = p;
    }
  });
});
