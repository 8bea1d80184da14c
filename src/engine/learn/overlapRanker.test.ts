import { describe, expect, it } from 'vitest';
import { OverlapRanker, relationFeatures, type RankedProposal } from './overlapRanker';

const whole = (x: number, probability: number): RankedProposal => ({ box: { x0: x, y0: 0, x1: x + 100, y1: 80 }, classId: 'raccoon', probability });
const headOf = (x: number, probability: number): RankedProposal => ({ box: { x0: x + 10, y0: 5, x1: x + 40, y1: 30 }, classId: 'raccoon', probability });

/** Photos with one raccoon and its head, both proposed as raccoons, the person keeping the raccoon only. */
function photosWhereParts(areRight: boolean, count = 30): { x: readonly number[]; correct: boolean }[] {
  return Array.from({ length: count }, (_, i) => {
    const probability = 0.55 + (i % 8) * 0.05;
    const proposals = [whole(i * 3, probability), headOf(i * 3, probability - 0.05)];
    const [w, h] = relationFeatures(proposals);
    return [{ x: w, correct: true }, { x: h, correct: areRight }];
  }).flat();
}

describe('overlap ranker', () => {
  it('ranks as the classifier does until the person has decided anything', () => {
    const ranker = new OverlapRanker();
    const { probabilities } = ranker.rank([whole(0, 0.9), headOf(0, 0.8), whole(300, 0.4)]);
    expect(probabilities[0]).toBeCloseTo(0.9, 6);
    expect(probabilities[1]).toBeCloseTo(0.8, 6);
    expect(probabilities[2]).toBeCloseTo(0.4, 6);
  });

  it('describes how a proposal sits against the more probable ones of its class only', () => {
    const [w, h, other, dog] = relationFeatures([whole(0, 0.9), headOf(0, 0.8), whole(300, 0.7), { ...headOf(0, 0.95), classId: 'dog' }]);
    expect(w.slice(1, 5)).toEqual([0, 0, 0, 0]);
    // The head lies wholly inside the more probable raccoon.
    expect(h[2]).toBe(1);
    expect(h[4]).toBeCloseTo(0.9, 6);
    expect(other.slice(1, 5)).toEqual([0, 0, 0, 0]);
    expect(dog.slice(1, 5)).toEqual([0, 0, 0, 0]);
  });

  it('learns from rejected parts to rank a part under a lone proposal of the same probability', () => {
    const ranker = new OverlapRanker();
    ranker.record(photosWhereParts(false));
    const [, head, lone] = ranker.rank([whole(0, 0.9), headOf(0, 0.7), whole(300, 0.7)]).probabilities;
    expect(head).toBeLessThan(0.3);
    expect(lone).toBeGreaterThan(0.6);
  });

  it('does not learn it where the parts were kept (a class whose parts are objects of their own)', () => {
    const ranker = new OverlapRanker();
    ranker.record(photosWhereParts(true));
    const [, head] = ranker.rank([whole(0, 0.9), headOf(0, 0.7)]).probabilities;
    expect(head).toBeGreaterThan(0.6);
  });

  it('its probabilities mean what they say: proposals right half the time get about one half', () => {
    const ranker = new OverlapRanker();
    const lone = relationFeatures([whole(0, 0.9)])[0];
    ranker.record(Array.from({ length: 400 }, (_, i) => ({ x: lone, correct: i % 2 === 0 })));
    expect(ranker.score(lone)).toBeCloseTo(0.5, 1);
  });

  it('serialises with its outcomes and answers the same after', () => {
    const ranker = new OverlapRanker();
    ranker.record(photosWhereParts(false, 10));
    const copy = OverlapRanker.fromJSON(JSON.parse(JSON.stringify(ranker.toJSON())));
    const proposals = [whole(0, 0.9), headOf(0, 0.7)];
    expect(copy.rank(proposals)).toEqual(ranker.rank(proposals));
    expect(() => OverlapRanker.fromJSON({ weights: [1, 0], outcomes: [] })).toThrow(/weights/);
  });
});
