/** The README's command examples show values in the shape the service really uses. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { KEY_PREFIX } from '../../src/server/domain/apiKeys';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('README examples', () => {
  it('show API keys with the prefix real keys have', () => {
    const shown = [...readme.matchAll(/(?:API_KEY=|Bearer\s+)([^\s`'"]+)/g)].map((m) => m[1]);
    expect(shown.length).toBeGreaterThan(0);
    for (const key of shown) expect(key.startsWith(KEY_PREFIX), `README shows the key ${key}`).toBe(true);
  });
});
