import { describe, expect, it } from 'vitest';
import { DomainError } from './errors';
import { checkImageLargeEnough, checkPromptsNotDegenerate } from './degeneratePrompts';

function ruleOf(check: () => void): string | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return (error as DomainError).extra.members?.rule as string;
  }
}

describe('degenerate prompts', () => {
  it('names the rule a prompt breaks, and lets sound prompts through', () => {
    const box = { x: 10, y: 10, width: 5, height: 5 };
    expect(ruleOf(() => checkPromptsNotDegenerate({ box }))).toBeUndefined();
    expect(ruleOf(() => checkPromptsNotDegenerate({ box: { ...box, width: 1, height: 1 }, points: [{ x: 0, y: 0, positive: true }] }))).toBeUndefined();
    expect(ruleOf(() => checkPromptsNotDegenerate({ box: { ...box, width: 0.999 } }))).toBe('box-under-one-pixel');
    expect(ruleOf(() => checkPromptsNotDegenerate({ box: { ...box, height: 5e-324 } }))).toBe('box-under-one-pixel');
    expect(ruleOf(() => checkPromptsNotDegenerate({ points: [{ x: 4, y: 2.2e-308, positive: true }] }))).toBe('subnormal-number');
    expect(ruleOf(() => checkPromptsNotDegenerate({ points: [{ x: 4, y: 2.2250738585072014e-308, positive: true }] }))).toBeUndefined();
    expect(ruleOf(() => checkPromptsNotDegenerate({ box: { ...box, x: 1e-320 } }))).toBe('subnormal-number');
  });

  it('refuses images under the minimum side, either way round', () => {
    expect(ruleOf(() => checkImageLargeEnough({ width: 16, height: 16 }))).toBeUndefined();
    expect(ruleOf(() => checkImageLargeEnough({ width: 15, height: 1000 }))).toBe('image-under-minimum-size');
    expect(ruleOf(() => checkImageLargeEnough({ width: 1000, height: 1 }))).toBe('image-under-minimum-size');
  });
});
