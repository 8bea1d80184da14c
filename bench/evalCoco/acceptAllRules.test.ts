import { describe, expect, it } from 'vitest';
import { CANDIDATE_RULES, checkOnNextPhoto, measuredThreshold, promisedThreshold, type SessionDecision } from './acceptAllRules';

/** `n` decisions on `photo` at `probability`, the first `right` of them right. */
const onPhoto = (photo: number, classId: string, n: number, probability: number, right: number): SessionDecision[] =>
  Array.from({ length: n }, (_, i) => ({ photo, classId, probability, correct: i < right }));

describe('"accept all" rules checked on the next photo', () => {
  it('a photo is judged by the threshold advised on the decisions before it, never on its own', () => {
    // Photo 0: 60 right at 0.9 (enough for the product's rule); photo 1: 10 at 0.9, 8 right.
    const decisions = [...onPhoto(0, 'cat', 60, 0.9, 60), ...onPhoto(1, 'cat', 10, 0.9, 8)];
    const product = CANDIDATE_RULES['≥ 95 % at 95 % confidence (the product)'];
    expect(checkOnNextPhoto(product, decisions, 0, 2)).toEqual({ letThrough: 10, right: 8, photosWithDefault: 1, photos: 2 });
    // Asked from photo 1 only, the same: photo 0's decisions are still what it learned from.
    expect(checkOnNextPhoto(product, decisions, 1, 2)).toEqual({ letThrough: 10, right: 8, photosWithDefault: 1, photos: 1 });
  });

  it('a per-class rule lets through only the classes whose own decisions qualify', () => {
    const decisions = [...onPhoto(0, 'cat', 60, 0.9, 60), ...onPhoto(0, 'dog', 60, 0.9, 40), ...onPhoto(1, 'cat', 5, 0.95, 5), ...onPhoto(1, 'dog', 5, 0.95, 1)];
    expect(checkOnNextPhoto(CANDIDATE_RULES['per class, ≥ 95 % at 95 % confidence'], decisions, 1, 2)).toEqual({ letThrough: 5, right: 5, photosWithDefault: 1, photos: 1 });
    // Pooled, the dogs' mistakes leave no threshold for anyone.
    expect(checkOnNextPhoto(CANDIDATE_RULES['≥ 95 % at 95 % confidence (the product)'], decisions, 1, 2).letThrough).toBe(0);
  });

  it('the measured rule takes the point estimate on enough decisions, stopping at the first threshold below', () => {
    const decided = [...onPhoto(0, 'cat', 20, 0.9, 20), ...onPhoto(0, 'cat', 20, 0.7, 10), ...onPhoto(0, 'cat', 200, 0.5, 200)];
    expect(measuredThreshold(decided, 10)).toBe(0.9);
    expect(measuredThreshold(decided, 30)).toBeUndefined();
  });

  it('the promised rule takes the lowest threshold above which the shown probabilities average the target, whatever was right', () => {
    // 20 at 0.99, 20 at 0.95, 20 at 0.85: above 0.95 the mean is 0.97, above 0.85 it is 0.93. None right: it reads no outcome.
    const decided = [...onPhoto(0, 'cat', 20, 0.99, 0), ...onPhoto(0, 'cat', 20, 0.95, 0), ...onPhoto(0, 'cat', 20, 0.85, 0)];
    expect(promisedThreshold(decided, 10)).toBe(0.95);
    expect(promisedThreshold(decided, 50)).toBeUndefined();
  });

  it('the newest-half rules read the newest half of the decisions alone', () => {
    // 60 wrong at 0.9, then 60 right: pooled no threshold qualifies, on the newest half it does.
    const decisions = [...onPhoto(0, 'cat', 60, 0.9, 0), ...onPhoto(1, 'cat', 60, 0.9, 60), ...onPhoto(2, 'cat', 4, 0.9, 4)];
    expect(checkOnNextPhoto(CANDIDATE_RULES['≥ 95 % at 95 % confidence (the product)'], decisions, 2, 3).letThrough).toBe(0);
    expect(checkOnNextPhoto(CANDIDATE_RULES['newest half, ≥ 95 % at 95 % confidence'], decisions, 2, 3)).toEqual({ letThrough: 4, right: 4, photosWithDefault: 1, photos: 1 });
  });
});
