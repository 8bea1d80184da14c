/** Sign-up, login, logout, account, API keys, credit packages and purchases, Stripe webhook. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CREDIT_PACKAGES, CreditPurchaseRequest, Credentials } from '../../../contract/account';
import { SESSION_TTL_MS } from '../../domain/accounts';
import { KNOWN_LOGIN_TTL_MS } from '../../domain/knownLogins';
import type { Services } from '../../domain/services';
import { CSRF_COOKIE, SESSION_COOKIE } from '../plugins/auth';
import { parseBody } from '../validation';
import { csrfTokenFor } from '../csrf';
import { apiRoute } from '../apiRoutes';

export interface CookiePolicy {
  secure: boolean | 'auto';
}

function setCsrfCookie(request: FastifyRequest, reply: FastifyReply, sessionToken: string, policy: CookiePolicy): string {
  const secure = policy.secure === 'auto' ? request.protocol === 'https' : policy.secure;
  const csrf = csrfTokenFor(sessionToken);
  // Readable by the SPA on purpose: it echoes it in X-CSRF-Token; the server checks it against the session.
  reply.setCookie(CSRF_COOKIE, csrf, { httpOnly: false, sameSite: 'strict', secure, path: '/', maxAge: Math.floor(SESSION_TTL_MS / 1000) });
  return csrf;
}

function setSessionCookies(request: FastifyRequest, reply: FastifyReply, token: string, policy: CookiePolicy): string {
  const secure = policy.secure === 'auto' ? request.protocol === 'https' : policy.secure;
  reply.setCookie(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'lax', secure, path: '/', maxAge: Math.floor(SESSION_TTL_MS / 1000) });
  return setCsrfCookie(request, reply, token, policy);
}

/** The device's login token (domain/knownLogins.ts): sent back to the login route only. */
export const DEVICE_COOKIE = 'mw_device';
const DEVICE_COOKIE_PATH = '/api/v1/auth';

function setDeviceCookie(request: FastifyRequest, reply: FastifyReply, token: string, policy: CookiePolicy): void {
  const secure = policy.secure === 'auto' ? request.protocol === 'https' : policy.secure;
  reply.setCookie(DEVICE_COOKIE, token, { httpOnly: true, sameSite: 'strict', secure, path: DEVICE_COOKIE_PATH, maxAge: Math.floor(KNOWN_LOGIN_TTL_MS / 1000) });
}

export async function accountRoutes(
  app: FastifyInstance,
  { services, cookies }: { services: Services; cookies: CookiePolicy },
): Promise<void> {
  const small = { bodyLimit: 16 * 1024 };

  apiRoute(app, 'signup', small, async (request, reply) => {
    const { email, password } = parseBody(Credentials, request.body);
    await services.authThrottles.admitSignup(request.ip);
    const { account, sessionToken } = await services.accounts.signup(email, password);
    setDeviceCookie(request, reply, await services.authThrottles.signedUp(email, request.ip, request.cookies[DEVICE_COOKIE]), cookies);
    const csrfToken = setSessionCookies(request, reply, sessionToken, cookies);
    return reply.code(201).send({ email: account.email, credits: account.credits, csrfToken });
  });

  apiRoute(app, 'login', small, async (request, reply) => {
    const { email, password } = parseBody(Credentials, request.body);
    const device = request.cookies[DEVICE_COOKIE];
    await services.authThrottles.admitLogin(email, request.ip, device);
    const { account, sessionToken } = await services.accounts.login(email, password);
    setDeviceCookie(request, reply, await services.authThrottles.loginSucceeded(email, request.ip, device), cookies);
    const csrfToken = setSessionCookies(request, reply, sessionToken, cookies);
    return reply.send({ email: account.email, credits: account.credits, csrfToken });
  });

  apiRoute(app, 'logout', { ...small, config: { auth: 'session' } }, async (request, reply) => {
    const token = request.cookies[SESSION_COOKIE];
    if (token) await services.accounts.logout(token);
    reply.clearCookie(SESSION_COOKIE, { path: '/' }).clearCookie(CSRF_COOKIE, { path: '/' });
    return reply.code(204).send();
  });

  apiRoute(app, 'account', { config: { auth: 'any' } }, async (request, reply) => {
    const account = await services.accounts.view(request.principal!.accountId);
    // A session from before tokens were bound to it (or a lost cookie) gets its token again here,
    // where the SPA starts: safe, since only this origin can read the cookie.
    const session = request.principal!.via === 'session' ? request.cookies[SESSION_COOKIE] : undefined;
    if (session && request.cookies[CSRF_COOKIE] !== csrfTokenFor(session)) setCsrfCookie(request, reply, session, cookies);
    return { email: account.email, credits: account.credits };
  });

  apiRoute(app, 'createApiKey', { ...small, config: { auth: 'session' } }, async (request, reply) => {
    return reply.code(201).send(await services.apiKeys.create(request.principal!.accountId));
  });

  apiRoute(app, 'listApiKeys', { config: { auth: 'session' } }, async (request) => {
    return { keys: await services.apiKeys.list(request.principal!.accountId) };
  });

  apiRoute<{ Params: { id: string } }>(
    app,
    'rotateApiKey',
    { ...small, config: { auth: 'session' } },
    async (request, reply) => reply.code(201).send(await services.apiKeys.rotate(request.principal!.accountId, request.params.id)),
  );

  apiRoute<{ Params: { id: string } }>(app, 'revokeApiKey', { config: { auth: 'session' } }, async (request, reply) => {
    await services.apiKeys.revoke(request.principal!.accountId, request.params.id);
    return reply.code(204).send();
  });

  apiRoute(app, 'creditPackages', {}, async () => ({
    packages: CREDIT_PACKAGES,
    paymentMode: services.payments.mode,
    perRequestPayment: services.x402 ? await services.x402.offer() : null,
  }));

  apiRoute(app, 'creditPurchases', { ...small, config: { auth: 'any' } }, async (request, reply) => {
    const { packageId } = parseBody(CreditPurchaseRequest, request.body);
    return reply.code(201).send(await services.payments.purchase(request.principal!.accountId, packageId));
  });

  // Stripe signs the exact bytes it sent: this route keeps the raw body.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, (_req, body, done) => done(null, body));
    apiRoute(scope, 'stripeWebhook', {}, async (request, reply) => {
      const signature = request.headers['stripe-signature'];
      const outcome = await services.payments.handleWebhook(
        request.body as Buffer,
        typeof signature === 'string' ? signature : undefined,
      );
      request.log.info({ outcome }, 'stripe webhook');
      return reply.send({ received: true });
    });
  });
}
