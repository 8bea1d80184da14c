import { describe, expect, it } from 'vitest';
import { aboveCut, lossSplit, type ScoredPhotoRecord } from './lossSplit';

const box = (x0: number, y0: number, x1: number, y1: number) => ({ x0, y0, x1, y1 });
const instance = (categoryId: number, b: ReturnType<typeof box>) => ({ categoryId, crowd: false, boxOnly: false, box: b, descriptor: { sam: [], detectors: [], appearance: [], backbone: [] } });
const proposal = (b: ReturnType<typeof box>, overlaps: number[]) => ({ box: b, area: (b.x1 - b.x0) * (b.y1 - b.y0), confidence: 1, source: 'grid', overlaps, descriptor: { sam: [], detectors: [], appearance: [], backbone: [] } });
const classOf = (id: number) => ['', 'cat', 'dog', 'cup'][id];

describe('lossSplit', () => {
  it('cuts the ranked list where recall at the precision is best', () => {
    const list = [0.9, 0.8, 0.7, 0.6, 0.5].map((probability, i) => ({ probability, truePositive: [true, true, false, true, false][i] }));
    // Precision 1, 1, 0.67, 0.75, 0.6: the cut keeps the first four (recall 3 of 4).
    expect([...aboveCut(list, 4, 0.7)].sort()).toEqual([0, 1, 2, 3]);
    expect(aboveCut(list, 4, 0.9).size).toBe(2);
  });

  it('puts each instance in one place and each wrong guess above the cut in a kind', () => {
    const record: ScoredPhotoRecord = {
      photo: {
        instances: [instance(1, box(0, 0, 10, 10)), instance(2, box(20, 0, 30, 10)), instance(3, box(40, 0, 50, 10)), instance(3, box(60, 0, 70, 10)), instance(1, box(80, 0, 90, 10))],
        proposals: [
          proposal(box(0, 0, 10, 10), [0.9, 0, 0, 0, 0]), // the cat, found
          proposal(box(20, 0, 30, 10), [0, 0.8, 0, 0, 0]), // the dog, guessed as cat: another class
          proposal(box(40, 0, 50, 10), [0, 0, 0.9, 0, 0]), // a cup, ranked below the cut
          proposal(box(0, 0, 4, 4), [0.16, 0, 0, 0, 0]), // a part of the cat, guessed as cat above the cut
          proposal(box(100, 0, 110, 10), [0, 0, 0, 0, 0]), // background, below the cut
          proposal(box(80, 0, 90, 10), [0, 0, 0, 0, 0.7]), // the second cat, guessed right but dropped before the ranking
        ],
      },
      judged: [
        { proposal: 0, classId: 'cat', probability: 0.95, source: 'learned', truePositive: true, instance: 0 },
        { proposal: 1, classId: 'cat', probability: 0.9, source: 'learned', truePositive: false },
        { proposal: 3, classId: 'cat', probability: 0.85, source: 'learned', truePositive: false },
        { proposal: 2, classId: 'cup', probability: 0.2, source: 'learned', truePositive: true, instance: 2 },
        { proposal: 4, classId: 'dog', probability: 0.1, source: 'learned', truePositive: false },
      ],
      bestGuess: [
        { classId: 'cat', probability: 0.95 },
        { classId: 'cat', probability: 0.9 },
        { classId: 'cup', probability: 0.2 },
        { classId: 'cat', probability: 0.85 },
        { classId: 'dog', probability: 0.1 },
        { classId: 'cat', probability: 0.5 },
      ],
    };
    // Precision down the list: 1, 0.5, 0.33, 0.5, 0.4; at 0.5 the cut keeps the first four (recall 2 of 5).
    const split = lossSplit([record], classOf, 0.5);
    expect(split.guessesAboveCut).toBe(4);
    expect(split.total.fates).toEqual({ found: 2, rankedBelowCut: 0, otherClass: 1, noGuess: 0, suppressed: 1, noProposal: 1 });
    const at = (c: string) => split.rows.find((r) => r.classId === c)!;
    expect(at('dog').confusedAs).toEqual({ cat: 1 });
    expect(at('cup').fates.noProposal).toBe(1);
    expect(at('cat').wrongAbove).toMatchObject({ wrongClass: 1, part: 1, background: 0 });

    const strict = lossSplit([record], classOf, 0.9);
    expect(strict.total.fates).toMatchObject({ found: 1, rankedBelowCut: 1 });
    expect(strict.guesses.filter((g) => g.above)).toHaveLength(1);
  });
});
