import { describe, expect, it } from 'vitest';
import { standardisation } from './standardisation';

describe('standardisation', () => {
  it('gives each feature its mean and 1/sd over the examples, and a constant feature scale 0', () => {
    const { mean, scale } = standardisation([{ x: [1, 5] }, { x: [3, 5] }], 2);
    expect([...mean]).toEqual([2, 5]);
    expect(scale[0]).toBeCloseTo(1, 12);
    expect(scale[1]).toBe(0);
  });

  it('with no examples every mean is 0 and every scale 0', () => {
    const { mean, scale } = standardisation([], 3);
    expect([...mean]).toEqual([0, 0, 0]);
    expect([...scale]).toEqual([0, 0, 0]);
  });
});
