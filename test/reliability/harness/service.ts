/**
 * What a real client does, over HTTP: sign up, get a key, buy credits, read the balance.
 * Session-authenticated state changes send the `mw_csrf` cookie value in `X-CSRF-Token`
 * (src/contract/problems.ts, csrf-token-invalid).
 */
import { randomBytes } from 'node:crypto';
import { CookieJar, request, sleep, retryAfterMs, type ApiResponse, type RequestOptions } from './http';

export const CSRF_COOKIE = 'mw_csrf';
export const CSRF_HEADER = 'x-csrf-token';

export interface Session {
  readonly baseUrl: string;
  readonly email: string;
  readonly password: string;
  readonly cookies: CookieJar;
  readonly signupResponse: ApiResponse;
}

export function uniqueEmail(tag = 'rel'): string {
  return `${tag}-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}@example.test`;
}

export function uniquePassword(): string {
  return `pw-${randomBytes(12).toString('base64url')}`;
}

export async function signup(baseUrl: string, tag = 'rel'): Promise<Session> {
  const email = uniqueEmail(tag);
  const password = uniquePassword();
  const cookies = new CookieJar();
  const response = await request(baseUrl, '/api/v1/auth/signup', { json: { email, password }, cookies });
  if (response.status !== 201) throw new Error(`signup failed: ${response.status} ${response.text}`);
  return { baseUrl, email, password, cookies, signupResponse: response };
}

export function csrfHeaders(session: Session): Record<string, string> {
  const token = session.cookies.get(CSRF_COOKIE);
  return token ? { [CSRF_HEADER]: token } : {};
}

/** A session-authenticated call with CSRF protection satisfied (the way the studio calls it). */
export function sessionCall(session: Session, path: string, options: RequestOptions = {}, baseUrl = session.baseUrl): Promise<ApiResponse> {
  return request(baseUrl, path, { ...options, cookies: session.cookies, headers: { ...csrfHeaders(session), ...options.headers } });
}

export interface CreatedKey {
  readonly id: string;
  readonly key: string;
  readonly prefix: string;
}

export async function createApiKey(session: Session, baseUrl = session.baseUrl): Promise<CreatedKey> {
  const response = await sessionCall(session, '/api/v1/api-keys', { method: 'POST', json: {} }, baseUrl);
  if (response.status !== 201) throw new Error(`api key creation failed: ${response.status} ${response.text}`);
  return response.body as CreatedKey;
}

/** Demo payment mode (no STRIPE_SECRET_KEY): the purchase completes at once. */
export async function buyCredits(session: Session, packageId: 'lite' | 'standard' | 'pro'): Promise<void> {
  const response = await sessionCall(session, '/api/v1/credit-purchases', { method: 'POST', json: { packageId } });
  if (response.status !== 200 && response.status !== 201) throw new Error(`purchase failed: ${response.status} ${response.text}`);
}

export async function credits(baseUrl: string, apiKey: string): Promise<number> {
  const response = await request(baseUrl, '/api/v1/account', { bearer: apiKey });
  if (response.status !== 200) throw new Error(`account read failed: ${response.status} ${response.text}`);
  return response.body.credits as number;
}

/** A new account with a key and (optionally) purchased credits on top of the 5 free ones. */
export async function customer(baseUrl: string, options: { tag?: string; buy?: Array<'lite' | 'standard' | 'pro'> } = {}) {
  const session = await signup(baseUrl, options.tag);
  for (const packageId of options.buy ?? []) await buyCredits(session, packageId);
  const apiKey = await createApiKey(session);
  return { session, apiKey, key: apiKey.key };
}

/**
 * Sends a request and keeps retrying while the answer is "come back later" (409 request-in-progress
 * or refund-pending, 429, 503), honouring Retry-After. Returns the first answer and the final one.
 */
export async function untilSettled(
  send: () => Promise<ApiResponse>,
  options: { maxWaitMs?: number; retryOn?: (r: ApiResponse) => boolean } = {},
): Promise<{ first: ApiResponse; final: ApiResponse; tries: number }> {
  const retryOn = options.retryOn ?? isComeBackLater;
  const deadline = Date.now() + (options.maxWaitMs ?? 60_000);
  const first = await send();
  let final = first;
  let tries = 1;
  while (retryOn(final)) {
    if (Date.now() > deadline) throw new Error(`still ${final.status} after ${tries} tries: ${final.text}`);
    // Jitter keeps 200 waiting clients from returning in lock-step.
    await sleep(Math.min(retryAfterMs(final), 2_000) * (0.5 + Math.random() * 0.5));
    final = await send();
    tries++;
  }
  return { first, final, tries };
}

export function isComeBackLater(response: ApiResponse): boolean {
  if (response.status === 429 || response.status === 503) return true;
  if (response.status !== 409) return false;
  const type = String(response.body?.type ?? '');
  return type.endsWith('/request-in-progress') || type.endsWith('/refund-pending');
}
