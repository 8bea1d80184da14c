import { describe, expect, it } from 'vitest';
import { cacheEntryProblem, cachedRule, LEARN_CACHE_VERSION } from './learnCache';

describe('cacheEntryProblem', () => {
  const entry = (rule?: 'objects' | 'thorough', version = LEARN_CACHE_VERSION) => ({ version, file: 'a.jpg', ...(rule ? { rule } : {}) });

  it("an entry from before the rule was recorded holds the interactive rule's proposals", () => {
    expect(cachedRule(entry())).toBe('objects');
    expect(cacheEntryProblem(entry(), 'objects')).toBeUndefined();
    expect(cacheEntryProblem(entry(), 'thorough')).toMatch(/a\.jpg .*objects rule.*thorough/);
  });

  it("an entry of another rule is refused, never recomputed over: another run may be replaying that folder", () => {
    expect(cacheEntryProblem(entry('thorough'), 'thorough')).toBeUndefined();
    expect(cacheEntryProblem(entry('thorough'), 'objects')).toMatch(/--cache/);
  });

  it('a missing or stale entry is simply computed', () => {
    expect(cacheEntryProblem(undefined, 'thorough')).toBeUndefined();
    expect(cacheEntryProblem(entry('objects', LEARN_CACHE_VERSION - 1), 'thorough')).toBeUndefined();
  });
});
