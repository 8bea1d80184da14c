import { describe, expect, it } from 'vitest';
import { replayDisplayMap } from './displayMapReplay';
import type { ShownDecisionRow } from './learnReplay';

/** 40 photos of 10 decisions each, shown at 0.9 and right half the time. */
const overConfident: ShownDecisionRow[] = Array.from({ length: 400 }, (_, i) => ({ photo: Math.floor(i / 10), classId: 'cat', probability: 0.9, correct: i % 2 === 0 }));

describe('a display map replayed on a run', () => {
  it('without a map displays what decided', () => {
    expect(replayDisplayMap(overConfident, 'none').map((r) => r.probability)).toEqual(overConfident.map(() => 0.9));
  });

  it('displays each photo as the map fitted on the photos before it says: nothing learned on the first, about the truth by the last', () => {
    const replayed = replayDisplayMap(overConfident, 'platt');
    expect(replayed.filter((r) => r.photo === 0).every((r) => r.probability === 0.9)).toBe(true);
    const last = replayed.filter((r) => r.photo === 39);
    expect(last[0].probability).toBeGreaterThan(0.45);
    expect(last[0].probability).toBeLessThan(0.6);
    // The ranking probability travels unchanged.
    expect(replayed.every((r) => r.rankingProbability === 0.9)).toBe(true);
  });

  it('reads the ranking probability where a run logged it apart from the displayed one', () => {
    const logged = overConfident.map((r) => ({ ...r, probability: 0.2, rankingProbability: 0.9 }));
    expect(replayDisplayMap(logged, 'none')[0].probability).toBe(0.9);
  });
});
