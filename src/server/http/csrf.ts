/**
 * The CSRF token is bound to the session: an HMAC of the session token, keyed by the token itself
 * (the session cookie is HttpOnly, so a page that can plant cookies or read ours still cannot
 * compute it, and every process computes the same value without a shared secret). A request
 * passes only with the token of the session it carries; a cookie and header set to any equal
 * value do not.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export function csrfTokenFor(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('maskwright csrf v1').digest('base64url');
}

export function csrfTokenMatches(sessionToken: string | undefined, header: unknown): boolean {
  if (!sessionToken || typeof header !== 'string') return false;
  const expected = Buffer.from(csrfTokenFor(sessionToken));
  const given = Buffer.from(header);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
