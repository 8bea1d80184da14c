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

/** Photos with one sure raccoon and a second, separate region also proposed as one, kept or not. */
function photosWhereSecondOnes(areRight: boolean, count = 30): { x: readonly number[]; correct: boolean }[] {
  return Array.from({ length: count }, (_, i) => {
    const [first, second] = relationFeatures([whole(0, 0.9), whole(300 + i, 0.5 + (i % 8) * 0.05)]);
    return [{ x: first, correct: true }, { x: second, correct: areRight }];
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

  it('counts the more probable proposals of its class on the photo, apart from it or not', () => {
    const [first, head, second, dog] = relationFeatures([whole(0, 0.9), headOf(0, 0.8), whole(300, 0.7), { ...whole(600, 0.95), classId: 'dog' }]);
    expect(first.slice(5, 7)).toEqual([0, 0]);
    expect(head.slice(5, 7)).toEqual([0.9, 1]);
    expect(second[5]).toBeCloseTo(1.7, 9);
    expect(second[6]).toBe(1);
    expect(dog.slice(5, 7)).toEqual([0, 0]);
  });

  it('learns from the decisions whether a second, separate proposal of a class is right: one raccoon a photo, or a crowd', () => {
    const taughtOn = (secondOnesRight: boolean) => {
      const ranker = new OverlapRanker();
      ranker.record(photosWhereSecondOnes(secondOnesRight));
      return ranker;
    };
    const oneAPhoto = taughtOn(false);
    expect(oneAPhoto.rank([whole(0, 0.9), whole(300, 0.7)]).probabilities[1]).toBeLessThan(0.3);
    expect(oneAPhoto.rank([whole(300, 0.7)]).probabilities[0]).toBeGreaterThan(0.6);
    expect(taughtOn(true).rank([whole(0, 0.9), whole(300, 0.7)]).probabilities[1]).toBeGreaterThan(0.6);
  });

  it('loads a ranker saved before the count features, answering as it did', () => {
    const oldWeights = [1.2, -0.5, -2, 0.3, -0.4, 0.1];
    const oldOutcome = { x: [0.4, 0.2, 0.9, 0.1, 0.8, 1], correct: false };
    const ranker = OverlapRanker.fromJSON({ weights: oldWeights, outcomes: [oldOutcome] });
    const proposals = [whole(0, 0.9), headOf(0, 0.7), whole(300, 0.6)].map((p) => ({ ...p, ring: [0.9, 0.8, 0.3] }));
    const oldScore = (x: readonly number[]) => 1 / (1 + Math.exp(-[0, 1, 2, 3, 4, 13].reduce((s, j, k) => s + x[j] * oldWeights[k], 0)));
    const { probabilities, relations } = ranker.rank(proposals);
    probabilities.forEach((p, i) => expect(p).toBeCloseTo(oldScore(relations[i]), 12));
    const saved = ranker.toJSON();
    expect(saved.weights).toHaveLength(14);
    expect(saved.outcomes[0].x).toEqual([0.4, 0.2, 0.9, 0.1, 0.8, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
  });

  it('loads a ranker saved before the ring features, answering as it did', () => {
    const oldWeights = [1.1, -0.5, -2, 0.3, -0.4, -0.2, -0.6, 0.1];
    const oldOutcome = { x: [0.4, 0.2, 0.9, 0.1, 0.8, 0.9, 1, 1], correct: false };
    const ranker = OverlapRanker.fromJSON({ weights: oldWeights, outcomes: [oldOutcome] });
    const proposals = [whole(0, 0.9), headOf(0, 0.7), whole(300, 0.6)].map((p) => ({ ...p, ring: [0.9, 0.8, 0.3] }));
    const oldScore = (x: readonly number[]) => 1 / (1 + Math.exp(-[0, 1, 2, 3, 4, 5, 6, 13].reduce((s, j, k) => s + x[j] * oldWeights[k], 0)));
    const { probabilities, relations } = ranker.rank(proposals);
    probabilities.forEach((p, i) => expect(p).toBeCloseTo(oldScore(relations[i]), 12));
    expect(ranker.toJSON().outcomes[0].x).toEqual([0.4, 0.2, 0.9, 0.1, 0.8, 0.9, 1, 0, 0, 0, 0, 0, 0, 1]);
  });

  it("loads a ranker saved before the mask's quality was read, answering as it did", () => {
    const oldWeights = [1.1, -0.5, -2, 0.3, -0.4, -0.2, -0.6, 0.4, -0.3, 0.2, -0.7, 0.5, 0.1];
    const oldOutcome = { x: [0.4, 0.2, 0.9, 0.1, 0.8, 0.9, 1, 0.5, 0.6, 0.7, 0.3, 0.2, 1], correct: true };
    const ranker = OverlapRanker.fromJSON({ weights: oldWeights, outcomes: [oldOutcome] });
    const proposals = [whole(0, 0.9), headOf(0, 0.7), whole(300, 0.6)].map((p, i) => ({ ...p, ring: [0.9, 0.8, 0.3], quality: 0.7 + 0.1 * i }));
    const oldScore = (x: readonly number[]) => 1 / (1 + Math.exp(-[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13].reduce((s, j, k) => s + x[j] * oldWeights[k], 0)));
    const { probabilities, relations } = ranker.rank(proposals);
    probabilities.forEach((p, i) => expect(p).toBeCloseTo(oldScore(relations[i]), 12));
    expect(ranker.toJSON().outcomes[0].x).toEqual([0.4, 0.2, 0.9, 0.1, 0.8, 0.9, 1, 0.5, 0.6, 0.7, 0.3, 0.2, 0, 1]);
  });

  it("reads the mask's quality as a logit; an unmeasured one as the photo's measured ones on average, or zero", () => {
    const logit = (q: number) => Math.log(q / (1 - q));
    const [sure, unsure, unmeasured] = relationFeatures([{ ...whole(0, 0.9), quality: 0.95 }, { ...whole(300, 0.7), quality: 0.6 }, whole(600, 0.6)]);
    expect(sure[12]).toBeCloseTo(logit(0.95), 9);
    expect(unsure[12]).toBeCloseTo(logit(0.6), 9);
    expect(unmeasured[12]).toBeCloseTo((logit(0.95) + logit(0.6)) / 2, 9);
    expect(relationFeatures([whole(0, 0.9)])[0][12]).toBe(0);
  });

  it('learns from rejected masks SAM was unsure of to rank such a mask under an as probable sure one, and not where they were kept', () => {
    // Photos with two separate proposals of as probable regions, SAM sure of one mask and not of the other (either
    // first, so the order tells nothing); the person kept the sure ones only, or both.
    const photo = (probability: number, unsureFirst: boolean, x = 0): { proposals: RankedProposal[]; unsure: number } => {
      const sure = { ...whole(x, probability), quality: 0.95 };
      const unsure = { ...whole(x + 300, probability), quality: 0.6 };
      return unsureFirst ? { proposals: [unsure, sure], unsure: 0 } : { proposals: [sure, unsure], unsure: 1 };
    };
    const taughtOn = (unsureOnesRight: boolean) => {
      const ranker = new OverlapRanker();
      ranker.record(
        Array.from({ length: 60 }, (_, i) => {
          const { proposals, unsure } = photo(0.5 + (i % 8) * 0.05, i % 2 === 0, i);
          return relationFeatures(proposals).map((x, k) => ({ x, correct: k !== unsure || unsureOnesRight }));
        }).flat(),
      );
      return [true, false].map((unsureFirst) => {
        const { proposals, unsure } = photo(0.7, unsureFirst);
        const probabilities = ranker.rank(proposals).probabilities;
        return { sure: probabilities[1 - unsure], unsure: probabilities[unsure] };
      });
    };
    for (const { sure, unsure } of taughtOn(false)) {
      expect(unsure).toBeLessThan(0.3);
      expect(sure).toBeGreaterThan(0.6);
    }
    for (const { sure, unsure } of taughtOn(true)) {
      expect(unsure).toBeGreaterThan(0.6);
      expect(sure).toBeGreaterThan(0.6);
    }
  });

  it("reads each proposal's ring numbers, zeros where its descriptor has none", () => {
    const [withRing, without] = relationFeatures([{ ...whole(0, 0.9), ring: [0.9, 0.8, 0.3] }, whole(300, 0.6)]);
    expect(withRing.slice(7, 10)).toEqual([0.9, 0.8, 0.3]);
    expect(without.slice(7, 10)).toEqual([0, 0, 0]);
  });

  it('reads the ring of the more probable proposal it lies in or holds: a region with surroundings around it, a part inside it', () => {
    const withSurroundings = { box: { x0: 0, y0: 0, x1: 200, y1: 160 }, classId: 'raccoon', probability: 0.9, ring: [0.3, 0.9, 0.2] };
    const [, inside] = relationFeatures([withSurroundings, { ...whole(50, 0.7), ring: [0.1, 0.1, 0.9] }]);
    // Wholly inside it: 1 × (1 − 0.2). It holds a quarter of it, which continues past its edge at 0.3.
    expect(inside[10]).toBeCloseTo(0.8, 9);
    expect(inside[11]).toBeCloseTo(0.25 * 0.3, 9);
    const part = { ...headOf(0, 0.9), ring: [0.85, 0.9, 0.9] };
    const [, holding] = relationFeatures([part, { ...whole(0, 0.7), ring: [0.1, 0.1, 0.9] }]);
    // It holds the head wholly (× 0.85); 750 of its 8,000 pixels lie in the head, whose border is like its middle (1 − 0.9).
    expect(holding[11]).toBeCloseTo(0.85, 9);
    expect(holding[10]).toBeCloseTo((750 / 8000) * 0.1, 9);
    // A more probable one without a ring (a descriptor from before it) says nothing of the kind.
    expect(relationFeatures([{ ...part, ring: undefined }, whole(0, 0.7)])[1].slice(10, 12)).toEqual([0, 0]);
  });

  it('learns from the decisions whether a region inside a more probable one is the object, by what kind of region that one is', () => {
    // The same inner region, the same boxes: only the outer region's ring differs (surroundings along its border, or not).
    const outer = (surroundings: boolean) => ({ box: { x0: 0, y0: 0, x1: 200, y1: 160 }, classId: 'raccoon', probability: 0.9, ring: [0.3, 0.9, surroundings ? 0.2 : 0.9] });
    const inner = (probability: number) => ({ ...whole(50, probability), ring: [0.5, 0.5, 0.9] });
    const ranker = new OverlapRanker();
    ranker.record(
      Array.from({ length: 120 }, (_, i) => {
        const surroundings = i % 2 === 0;
        const [, x] = relationFeatures([outer(surroundings), inner(0.55 + (i % 8) * 0.05)]);
        return { x, correct: surroundings };
      }),
    );
    const [, inSurroundings] = ranker.rank([outer(true), inner(0.7)]).probabilities;
    const [, inWhole] = ranker.rank([outer(false), inner(0.7)]).probabilities;
    expect(inSurroundings).toBeGreaterThan(0.6);
    expect(inSurroundings - inWhole).toBeGreaterThan(0.2);
  });

  it('learns from rejected regions that continue past their edge (parts) to rank such a lone one under an equally probable one that ends there', () => {
    // Lone on their photos, so the boxes' relations cannot tell them apart: only the ring can.
    const endsAtEdge = [0.05, 0.1, 0.9];
    const continuesPastEdge = [0.85, 0.9, 0.9];
    const ranker = new OverlapRanker();
    ranker.record(
      Array.from({ length: 40 }, (_, i) => {
        const probability = 0.55 + (i % 8) * 0.05;
        const [x] = relationFeatures([{ ...whole(0, probability), ring: i % 2 === 0 ? endsAtEdge : continuesPastEdge }]);
        return { x, correct: i % 2 === 0 };
      }),
    );
    const [whole_] = ranker.rank([{ ...whole(0, 0.7), ring: endsAtEdge }]).probabilities;
    const [part] = ranker.rank([{ ...whole(0, 0.7), ring: continuesPastEdge }]).probabilities;
    expect(whole_).toBeGreaterThan(0.6);
    expect(part).toBeLessThan(0.3);
  });

  it('learns from rejected parts to rank a part under a lone proposal of the same probability', () => {
    const ranker = new OverlapRanker();
    ranker.record(photosWhereParts(false));
    const [, head] = ranker.rank([whole(0, 0.9), headOf(0, 0.7)]).probabilities;
    // Alone on its photo: a second raccoon beside a first is what the count features judge, and every head here had one above it.
    const [lone] = ranker.rank([whole(300, 0.7)]).probabilities;
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
    expect(() => OverlapRanker.fromJSON({ weights: [1, 0, 0, 0, 0, 0, 0], outcomes: [] })).toThrow(/weights/);
    expect(() => OverlapRanker.fromJSON({ weights: new Array(11).fill(0), outcomes: [] })).toThrow(/weights/);
    expect(() => OverlapRanker.fromJSON({ weights: new Array(15).fill(0), outcomes: [] })).toThrow(/weights/);
  });
});
