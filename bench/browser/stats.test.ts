import { describe, expect, it } from 'vitest';
import { percentile, summarize } from './stats';

describe('summarize', () => {
  it('takes nearest-rank percentiles of unsorted samples', () => {
    const s = summarize([5, 1, 4, 2, 3, 10, 9, 8, 7, 6]);
    expect(s).toEqual({ n: 10, p50: 5, p90: 9, min: 1, max: 10 });
  });

  it('handles one sample and none', () => {
    expect(summarize([42])).toMatchObject({ p50: 42, p90: 42 });
    expect(Number.isNaN(percentile([], 50))).toBe(true);
  });
});
