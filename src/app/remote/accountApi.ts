import type { z } from 'zod';
import { Account, ApiKeyCreated, ApiKeyList, CreditPackageList, CreditPurchase, jsonBody, readProblem, type CreditPackageId } from '../../contract';
import { apiUrl } from './remoteClient';
import { explainFailure } from './retryPolicy';

/**
 * Account routes use the session cookie; state-changing ones echo the `mw_csrf` cookie in
 * `X-CSRF-Token` (double-submit), as the server requires.
 */
export class AccountApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly problemType?: string,
  ) {
    super(message);
    this.name = 'AccountApiError';
  }
}

export function csrfToken(): string | null {
  const match = document.cookie.split(/;\s*/).find((c) => c.startsWith('mw_csrf='));
  return match ? decodeURIComponent(match.slice('mw_csrf='.length)) : null;
}

async function call<T>(baseUrl: string, method: string, path: string, schema: z.ZodType<T> | null, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET') {
    const token = csrfToken();
    if (token) headers['X-CSRF-Token'] = token;
  }
  const response = await fetch(apiUrl(baseUrl, path), {
    method,
    headers,
    credentials: 'include',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await jsonBody(response);
  if (!response.ok) {
    const problem = readProblem(json);
    const message = response.status === 401 || response.status === 409 || response.status === 400 ? (problem.message ?? explainFailure(response.status)) : explainFailure(response.status, problem.type, problem.message);
    throw new AccountApiError(message, response.status, problem.type);
  }
  if (!schema) return undefined as T;
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new AccountApiError('The server answered with an unexpected shape.', response.status);
  return parsed.data;
}

export const accountApi = {
  signup: (baseUrl: string, email: string, password: string) => call(baseUrl, 'POST', '/api/v1/auth/signup', null, { email, password }),
  login: (baseUrl: string, email: string, password: string) => call(baseUrl, 'POST', '/api/v1/auth/login', null, { email, password }),
  logout: (baseUrl: string) => call(baseUrl, 'POST', '/api/v1/auth/logout', null),
  account: (baseUrl: string) => call(baseUrl, 'GET', '/api/v1/account', Account),
  listKeys: (baseUrl: string) => call(baseUrl, 'GET', '/api/v1/api-keys', ApiKeyList),
  createKey: (baseUrl: string) => call(baseUrl, 'POST', '/api/v1/api-keys', ApiKeyCreated, {}),
  rotateKey: (baseUrl: string, id: string) => call(baseUrl, 'POST', `/api/v1/api-keys/${encodeURIComponent(id)}/rotate`, ApiKeyCreated, {}),
  revokeKey: (baseUrl: string, id: string) => call(baseUrl, 'DELETE', `/api/v1/api-keys/${encodeURIComponent(id)}`, null),
  packages: (baseUrl: string) => call(baseUrl, 'GET', '/api/v1/credit-packages', CreditPackageList),
  purchase: (baseUrl: string, packageId: CreditPackageId) => call(baseUrl, 'POST', '/api/v1/credit-purchases', CreditPurchase, { packageId }),
};

/** Balance with a Bearer key, for someone who pasted a key but is not logged in here. */
export async function accountWithKey(baseUrl: string, apiKey: string): Promise<Account> {
  const response = await fetch(apiUrl(baseUrl, '/api/v1/account'), { headers: { Authorization: `Bearer ${apiKey}` } });
  if (!response.ok) throw new AccountApiError(explainFailure(response.status), response.status);
  return Account.parse(await response.json());
}

export function formatPrice(priceCents: number, currency: string): string {
  return new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() }).format(priceCents / 100);
}

export function formatPerCall(priceCents: number, credits: number, currency: string): string {
  return new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase(), minimumFractionDigits: 3, maximumFractionDigits: 3 }).format(priceCents / 100 / credits);
}
