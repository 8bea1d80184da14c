import { describe, expect, it } from 'vitest';
import { proposalOutcomes } from './learnReplay';

describe('learn replay: what a finished photo teaches the ranker and the shown map', () => {
  it('a shown guess is learned as the reviewer decided it, one never shown as the judging counted it', () => {
    const relation = (k: number) => [k, 0, 0, 0, 0, 0, 0, 1];
    const judged = [
      // Counted right by the judging, but its instance was taken by a more probable guess the reviewer re-classed.
      { guess: { proposal: 3, classId: 'cat', relation: relation(3) }, truePositive: true },
      { guess: { proposal: 5, classId: 'cat', relation: relation(5) }, truePositive: true },
      // Never shown: below the shown threshold.
      { guess: { proposal: 8, classId: 'dog', relation: relation(8) }, truePositive: true },
    ];
    const reviewed = new Map([
      [3, false],
      [5, true],
    ]);
    expect(proposalOutcomes(judged, reviewed)).toEqual([
      { relation: relation(3), correct: false, shown: true, classId: 'cat' },
      { relation: relation(5), correct: true, shown: true, classId: 'cat' },
      { relation: relation(8), correct: true, shown: false, classId: 'dog' },
    ]);
  });
});
