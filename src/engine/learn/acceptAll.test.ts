import { describe, expect, it } from 'vitest';
import { acceptAllAdvice, binomialUpperTail, confidentThreshold, decisionsNeeded, precisionAt, precisionReaches } from './acceptAll';

/** `n` decisions at `confidence`, the first `right` of them right. */
const decisions = (n: number, confidence: number, right: number) => Array.from({ length: n }, (_, i) => ({ probability: confidence, correct: i < right }));

describe('"accept all": a default that holds beyond the decisions it was picked on', () => {
  it('the binomial tail is exact on small cases and stays finite on thousands', () => {
    expect(binomialUpperTail(10, 10, 0.95)).toBeCloseTo(0.95 ** 10, 12);
    expect(binomialUpperTail(2, 1, 0.5)).toBeCloseTo(0.75, 12);
    expect(binomialUpperTail(3, 0, 0.9)).toBe(1);
    expect(binomialUpperTail(3, 4, 0.9)).toBe(0);
    const many = binomialUpperTail(5000, 4800, 0.95);
    expect(many).toBeGreaterThan(0);
    expect(many).toBeLessThan(0.01);
  });

  it('10 of 10 right cannot claim 95 %; 200 of 200 can; 59 all right is the fewest that can', () => {
    expect(precisionReaches(10, 10)).toBe(false);
    expect(precisionReaches(200, 200)).toBe(true);
    expect(decisionsNeeded()).toBe(59);
    expect(precisionReaches(58, 58)).toBe(false);
    expect(precisionReaches(59, 59)).toBe(true);
    // 97 % measured on 100 is not yet sure to be 95 %; on 1,000 it is.
    expect(precisionReaches(100, 97)).toBe(false);
    expect(precisionReaches(1000, 970)).toBe(true);
  });

  it('with 10 of 10 right there is no default, and it says too few decisions; with 200 of 200 the default is their confidence', () => {
    expect(acceptAllAdvice(decisions(10, 0.9, 10), null)).toEqual({ threshold: 0.8, measuredDefault: undefined, noDefaultBecause: 'few-decisions', precision: 1, count: 10 });
    expect(acceptAllAdvice(decisions(200, 0.9, 200), null)).toEqual({ threshold: 0.9, measuredDefault: 0.9, precision: 1, count: 200 });
  });

  it('many decisions, too many of them wrong: no default, for that reason', () => {
    expect(acceptAllAdvice(decisions(200, 0.9, 180), null)).toMatchObject({ measuredDefault: undefined, noDefaultBecause: 'low-precision', precision: 0.9, count: 200 });
  });

  it('the default is the lowest qualifying threshold, not reaching down into confidences no decision had', () => {
    // At 0.93: 100 of 100 right; at 0.6: 15 of 30; at 0.3: none of 10.
    const decided = [...decisions(100, 0.93, 100), ...decisions(30, 0.6, 15), ...decisions(10, 0.3, 0)];
    expect(confidentThreshold(decided)).toBe(0.93);
    // A few wrong among many right still qualifies, one step lower.
    const mixed = [...decisions(100, 0.93, 100), ...decisions(150, 0.85, 147), ...decisions(30, 0.6, 15)];
    expect(confidentThreshold(mixed)).toBe(0.85);
    expect(precisionAt(mixed, 0.85)).toEqual({ precision: 247 / 250, count: 250 });
  });

  it('the thresholds are tested from the most confident down, and the first that fails ends the search', () => {
    // The most confident 60 are 90 % right: not sure of 95 %. Below them 400 more, all right, would
    // make 0.8 look good, but trying every threshold until one looks good is how defaults over-promise.
    const decided = [...decisions(60, 0.97, 54), ...decisions(400, 0.8, 400)];
    expect(precisionReaches(460, 454)).toBe(true);
    expect(confidentThreshold(decided)).toBeUndefined();
    expect(acceptAllAdvice(decided, null).noDefaultBecause).toBe('few-decisions');
  });

  it('the person’s own threshold wins, and its precision is shown only with enough decisions there', () => {
    const decided = [...decisions(100, 0.93, 100), ...decisions(30, 0.6, 15)];
    expect(acceptAllAdvice(decided, 0.5)).toEqual({ threshold: 0.5, measuredDefault: 0.93, precision: 115 / 130, count: 130 });
    expect(acceptAllAdvice(decided.slice(0, 6), 0.9)).toMatchObject({ threshold: 0.9, precision: undefined, count: 6 });
  });
});
