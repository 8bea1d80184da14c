import { describe, expect, it } from 'vitest';
import { DomainError } from './errors';
import { checkPromptsInside } from './promptBounds';

const size = { width: 451, height: 300 };
const refusal = (prompts: Parameters<typeof checkPromptsInside>[0]) => {
  try {
    checkPromptsInside(prompts, size);
    return undefined;
  } catch (error) {
    return error as DomainError;
  }
};

describe('prompts on the image', () => {
  it('accepts points on the image, its edges included, and a box centred on it', () => {
    expect(refusal({ points: [{ x: 0, y: 0, positive: true }, { x: 451, y: 300, positive: false }], box: { x: 440, y: 10, width: 100, height: 100 } })).toBeUndefined();
  });

  it('refuses a point or a box centre beside the image, naming the size and each prompt', () => {
    const error = refusal({ points: [{ x: 10, y: 10, positive: true }, { x: 10000, y: 10000, positive: true }], box: { x: 452, y: 1, width: 5, height: 5 } });
    expect(error).toBeInstanceOf(DomainError);
    expect(error?.slug).toBe('validation-failed');
    expect(error?.message).toContain('451 × 300');
    expect(error?.extra.errors?.map((e) => e.path)).toEqual(['points.1', 'box']);
  });
});
