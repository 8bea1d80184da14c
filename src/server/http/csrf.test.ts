import { describe, expect, it } from 'vitest';
import { csrfTokenFor, csrfTokenMatches } from './csrf';

describe('session-bound CSRF token', () => {
  it('is the same for one session and differs between sessions', () => {
    expect(csrfTokenFor('session-a')).toBe(csrfTokenFor('session-a'));
    expect(csrfTokenFor('session-a')).not.toBe(csrfTokenFor('session-b'));
  });

  it('matches only the token of the session sent with it', () => {
    expect(csrfTokenMatches('session-a', csrfTokenFor('session-a'))).toBe(true);
    expect(csrfTokenMatches('session-a', csrfTokenFor('session-b'))).toBe(false);
    expect(csrfTokenMatches('session-a', 'x')).toBe(false);
    expect(csrfTokenMatches(undefined, csrfTokenFor(''))).toBe(false);
    expect(csrfTokenMatches('session-a', undefined)).toBe(false);
  });
});
