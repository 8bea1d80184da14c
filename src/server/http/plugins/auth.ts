/**
 * Who is calling. `Authorization: Bearer <API key>` or the session cookie (the SPA).
 * Routes declare `config.auth`: 'none' | 'any' (key or session) | 'session' (account settings).
 * Cookie-authenticated unsafe methods must pass the CSRF check: header X-CSRF-Token equal to the
 * token bound to the session (http/csrf.ts), which the SPA reads from the `mw_csrf` cookie. Bearer
 * requests are exempt (a browser never adds
 * an Authorization header on its own). Metered routes (`config.metered`) are rate limited here,
 * before the body is parsed.
 *
 * Per-request payment (x402), when configured, applies to metered routes only and only without
 * `Authorization` (an API key always means credits): a `PAYMENT-SIGNATURE` header makes the request
 * a paid one, rate limited here on arrival (by the payer it names, else by client address) and
 * verified and settled by the domain (domain/metered/x402.ts);
 * no key, no session and no payment → 402 with the payment requirements instead of 401.
 */
import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../domain/errors';
import type { Services } from '../../domain/services';
import { timed } from '../../domain/timings';
import type { PaymentContext } from '../../domain/metered/x402';
import { csrfTokenMatches } from '../csrf';

export type AuthMode = 'none' | 'any' | 'session';

export interface Principal {
  accountId: string;
  via: 'api-key' | 'session';
  /** The balance read with the API key (not for sessions): lets a metered call refuse an empty account before it starts work. */
  balanceHint?: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
    /** Set instead of `principal` when the request pays for itself (x402). */
    payment: PaymentContext | null;
  }
  interface FastifyContextConfig {
    auth?: AuthMode;
    metered?: boolean;
    /** false: a metered route that only credits pay for (no x402 offer, 401 without a key or session). */
    perRequestPayment?: boolean;
  }
}

export const SESSION_COOKIE = 'mw_session';
export const CSRF_COOKIE = 'mw_csrf';
export const CSRF_HEADER = 'x-csrf-token';

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export async function resolvePrincipal(services: Services, request: FastifyRequest): Promise<Principal | null> {
  const authorization = request.headers.authorization;
  if (authorization !== undefined) {
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization);
    const holder = match ? await services.apiKeys.authenticate(match[1]) : undefined;
    if (!holder) throw new DomainError('unauthenticated', 'the API key is missing, unknown, revoked or rotated out');
    return { accountId: holder.accountId, via: 'api-key', balanceHint: holder.balance };
  }
  const token = request.cookies?.[SESSION_COOKIE];
  if (token) {
    const accountId = await services.accounts.accountForSession(token);
    if (accountId) return { accountId, via: 'session' };
  }
  return null;
}

export function checkCsrf(request: FastifyRequest): void {
  if (!csrfTokenMatches(request.cookies?.[SESSION_COOKIE], request.headers[CSRF_HEADER])) {
    throw new DomainError('csrf-token-invalid', 'send the X-CSRF-Token of this session (the mw_csrf cookie)');
  }
}

export const authPlugin = fp<{ services: Services }>(async (app, { services }) => {
  app.decorateRequest('principal', null);
  app.decorateRequest('payment', null);
  app.addHook('onRequest', async (request: FastifyRequest, _reply: FastifyReply) => {
    const mode = request.routeOptions.config?.auth ?? 'none';
    if (mode === 'none') return;
    await timed(request.timings, 'auth', () => authenticate(request, mode));
  });

  async function authenticate(request: FastifyRequest, mode: AuthMode): Promise<void> {
    const config = request.routeOptions.config;
    const x402 = mode === 'any' && config?.metered && config.perRequestPayment !== false ? services.x402 : null;
    const resourceUrl = () => x402!.resourceUrl(`${request.protocol}://${request.host}`, request.url.split('?')[0]);
    if (x402 && request.headers.authorization === undefined) {
      const header = request.headers['payment-signature'];
      if (typeof header === 'string') {
        // Decoded once, here: the domain takes the payload as it is. Counted on arrival, before the
        // facilitator is asked anything: a burst costs no verify calls. By the payer the payment
        // names, or the client's address when it names none.
        const payload = x402.decode(header);
        const payer = x402.claimedPayer(payload);
        await admit(payer ? `x402:${payer}` : `x402-client:${request.ip}`, payer ? 'payer' : 'client address');
        request.payment = { payload, resourceUrl: resourceUrl() };
        return;
      }
    }
    const principal = await resolvePrincipal(services, request);
    if (!principal) {
      if (x402) throw await x402.paymentError(resourceUrl());
      throw new DomainError('unauthenticated', mode === 'session' ? 'log in first' : 'send Authorization: Bearer <API key>');
    }
    if (mode === 'session' && principal.via !== 'session') {
      throw new DomainError('unauthenticated', 'this route is for the logged-in account settings; an API key cannot manage keys');
    }
    if (principal.via === 'session' && UNSAFE_METHODS.has(request.method)) checkCsrf(request);
    request.principal = principal;
    if (request.routeOptions.config?.metered) await admit(principal.accountId, 'account');
  }

  /** The metered routes' limit: `limit` requests per second per key → else 429 with Retry-After. */
  async function admit(key: string, per: string): Promise<void> {
    const admission = await services.rateLimiter.admit(key);
    if (!admission.admitted) {
      throw new DomainError('rate-limited', `at most ${services.rateLimiter.limit} requests per second per ${per}`, {
        retryAfterSeconds: admission.retryAfterSeconds,
      });
    }
  }
});
