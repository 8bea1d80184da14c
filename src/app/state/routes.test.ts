import { describe, expect, it } from 'vitest';
import { hashForPage, pageFromHash } from './routes';

describe('hash routes', () => {
  it('maps hashes to pages and back', () => {
    expect(pageFromHash('')).toBe('studio');
    expect(pageFromHash('#/')).toBe('studio');
    expect(pageFromHash('#/keys')).toBe('keys');
    expect(pageFromHash('#credits')).toBe('credits');
    expect(pageFromHash('#/account/extra')).toBe('account');
    expect(pageFromHash('#/nonsense')).toBe('studio');
    for (const page of ['studio', 'account', 'keys', 'credits'] as const) expect(pageFromHash(hashForPage(page))).toBe(page);
  });
});
