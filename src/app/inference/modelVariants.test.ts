import { describe, expect, it } from 'vitest';
import { BROWSER_DEFAULT_VARIANTS, browserModelVariants, describeVariants } from './modelVariants';

describe('browserModelVariants', () => {
  it('uses the measured default unless the page asks for fp32 or int8', () => {
    expect(browserModelVariants('')).toEqual(BROWSER_DEFAULT_VARIANTS);
    expect(browserModelVariants('?models=fp32')).toEqual({ encoder: 'fp32', decoder: 'fp32' });
    expect(browserModelVariants('?a=1&models=int8')).toEqual({ encoder: 'int8', decoder: 'int8' });
    expect(browserModelVariants('?models=fp16')).toEqual(BROWSER_DEFAULT_VARIANTS);
  });

  it('names the variants for the status bar', () => {
    expect(describeVariants({ encoder: 'int8', decoder: 'int8' })).toBe('int8 models');
    expect(describeVariants({ encoder: 'int8', decoder: 'fp32' })).toBe('encoder int8 · decoder fp32');
  });
});
