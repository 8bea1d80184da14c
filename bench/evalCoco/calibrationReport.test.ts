import { describe, expect, it } from 'vitest';
import { calibrationReport } from './calibrationReport';
import type { ShownDecisionRow } from './learnReplay';

/** A deterministic generator (Park and Miller), so the simulated sessions decide the same on every run. */
function generator(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 48271) % 2147483647) / 2147483647;
}

/** `count` decisions over photos 0–99, shown uniformly from 0.3 up, right with probability `truth(shown, photo)`. */
function session(count: number, seed: number, truth: (probability: number, photo: number) => number): ShownDecisionRow[] {
  const random = generator(seed);
  return Array.from({ length: count }, (_, i) => {
    const probability = 0.3 + 0.7 * random();
    const photo = Math.floor((100 * i) / count);
    return { photo, classId: photo % 2 ? 'cat' : 'dog', probability, correct: random() < truth(probability, photo) };
  });
}

describe('where the calibration error comes from', () => {
  it('calibrated sessions measure about their noise floor; a drifting one is told from it, with its late photos named', () => {
    const calibrated = calibrationReport([1, 2, 3].map((seed) => session(220, seed, (p) => p)));
    expect(calibrated.meanEce).toBeLessThan(calibrated.meanFloor * 1.6);
    expect(calibrated.chanceIfCalibrated).toBeGreaterThan(0.05);
    expect(calibrated.pooled.decisions).toBe(660);

    // Right as shown on the first half of the photos, 20 points less on the second.
    const drifting = calibrationReport([1, 2, 3].map((seed) => session(220, seed, (p, photo) => (photo < 50 ? p : p - 0.2))));
    expect(drifting.chanceIfCalibrated).toBe(0);
    expect(drifting.pooled.ece).toBeGreaterThan(2 * drifting.pooled.floor);
    expect(drifting.late.meanProbability - drifting.late.accuracy).toBeGreaterThan(0.12);
    expect(Math.abs(drifting.early.meanProbability - drifting.early.accuracy)).toBeLessThan(0.06);
    expect(drifting.byClass.map((c) => c.classId).sort()).toEqual(['cat', 'dog']);
  });
});
