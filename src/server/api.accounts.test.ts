/**
 * Accounts, sessions, API keys, credits, CSRF, errors and docs over real HTTP against a real
 * database (SQLite; PostgreSQL too when TEST_DATABASE_URL is set). No inference here.
 */
import { connect } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES, expectProblem, NO_INFERENCE, parseSetCookies, signupUser, startTestServer, type TestServer } from '../../test/support/server/harness';

describe.each(DATABASES)('accounts and keys (%s)', (dbKind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ db: dbKind, backend: NO_INFERENCE });
  });
  afterEach(async () => server.checkLedger());
  afterAll(async () => server?.cleanup());

  it('signs up with 5 free credits and an HttpOnly SameSite session cookie; passwords stored as Argon2id', async () => {
    const response = await server.fetch('/api/v1/auth/signup', {
      method: 'POST',
      json: { email: 'Alice@Example.test', password: 'correct horse battery' },
    });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ email: 'alice@example.test', credits: 5 });
    const cookies = parseSetCookies(response);
    expect(cookies.mw_session.attributes).toMatch(/HttpOnly/i);
    expect(cookies.mw_session.attributes).toMatch(/SameSite=Lax/i);
    expect(cookies.mw_csrf.attributes).not.toMatch(/HttpOnly/i);
    const row = await server.services.db.kysely
      .selectFrom('accounts')
      .select('password_hash')
      .where('email', '=', 'alice@example.test')
      .executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^\$argon2id\$/);
    expect(row.password_hash).not.toContain('correct horse');
    const again = await server.fetch('/api/v1/auth/signup', {
      method: 'POST',
      json: { email: 'alice@example.test', password: 'another password' },
    });
    await expectProblem(again, 409, 'email-taken');
  });

  it('logs in, rejects a wrong password and an unknown email alike, logs out', async () => {
    const user = await signupUser(server, false);
    const wrong = await server.fetch('/api/v1/auth/login', { method: 'POST', json: { email: user.email, password: 'nope-nope-nope' } });
    await expectProblem(wrong, 401, 'invalid-credentials');
    const unknown = await server.fetch('/api/v1/auth/login', { method: 'POST', json: { email: 'x@y.test', password: 'nope-nope-nope' } });
    await expectProblem(unknown, 401, 'invalid-credentials');
    const ok = await server.fetch('/api/v1/auth/login', { method: 'POST', json: { email: user.email, password: user.password } });
    expect(ok.status).toBe(200);
    const cookies = parseSetCookies(ok);
    const session = { cookie: `mw_session=${cookies.mw_session.value}; mw_csrf=${cookies.mw_csrf.value}` };
    expect((await server.fetch('/api/v1/account', { headers: session })).status).toBe(200);
    const noCsrf = await server.fetch('/api/v1/auth/logout', { method: 'POST', headers: session });
    await expectProblem(noCsrf, 403, 'csrf-token-invalid');
    const out = await server.fetch('/api/v1/auth/logout', { method: 'POST', headers: { ...session, 'x-csrf-token': cookies.mw_csrf.value } });
    expect(out.status).toBe(204);
    await expectProblem(await server.fetch('/api/v1/account', { headers: session }), 401, 'unauthenticated');
  });

  it('validates sign-up input with 400 problem details listing each error', async () => {
    const response = await server.fetch('/api/v1/auth/signup', { method: 'POST', json: { email: 'not-an-email', password: 'short' } });
    const body = await expectProblem(response, 400, 'validation-failed');
    expect((body.errors as { path: string }[]).map((e) => e.path).sort()).toEqual(['email', 'password']);
  });

  it('creates API keys shown once, stored only as a hash, listed without the secret', async () => {
    const user = await signupUser(server);
    expect(user.key).toMatch(/^mwk_[A-Za-z0-9_-]{43}$/);
    const list = await server.fetch('/api/v1/api-keys', { headers: { cookie: user.cookie } });
    const text = await list.text();
    expect(text).not.toContain(user.key);
    expect(JSON.parse(text).keys).toEqual([expect.objectContaining({ id: user.keyId, prefix: user.key.slice(0, 12) })]);
    const stored = await server.services.db.kysely.selectFrom('api_keys').selectAll().where('id', '=', user.keyId).executeTakeFirstOrThrow();
    expect(JSON.stringify(stored)).not.toContain(user.key);
    const account = await server.fetch('/api/v1/account', { headers: user.bearer });
    expect(await account.json()).toEqual({ email: user.email, credits: 5 });
  });

  it('answers 401 with WWW-Authenticate: Bearer for a missing, unknown, rotated-out or revoked key', async () => {
    const user = await signupUser(server);
    const missing = await server.fetch('/api/v1/account');
    await expectProblem(missing, 401, 'unauthenticated');
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    await expectProblem(await server.fetch('/api/v1/account', { headers: { authorization: 'Bearer mwk_unknown' } }), 401, 'unauthenticated');
    await expectProblem(await server.fetch('/api/v1/account', { headers: { authorization: 'Basic abc' } }), 401, 'unauthenticated');

    const rotated = await server.fetch(`/api/v1/api-keys/${user.keyId}/rotate`, { method: 'POST', headers: user.sessionHeaders });
    expect(rotated.status).toBe(201);
    const fresh = (await rotated.json()) as { id: string; key: string };
    expect(fresh.key).not.toBe(user.key);
    await expectProblem(await server.fetch('/api/v1/account', { headers: user.bearer }), 401, 'unauthenticated');
    expect((await server.fetch('/api/v1/account', { headers: { authorization: `Bearer ${fresh.key}` } })).status).toBe(200);

    const revoked = await server.fetch(`/api/v1/api-keys/${fresh.id}`, { method: 'DELETE', headers: user.sessionHeaders });
    expect(revoked.status).toBe(204);
    await expectProblem(await server.fetch('/api/v1/account', { headers: { authorization: `Bearer ${fresh.key}` } }), 401, 'unauthenticated');
    const again = await server.fetch(`/api/v1/api-keys/${fresh.id}`, { method: 'DELETE', headers: user.sessionHeaders });
    await expectProblem(again, 404, 'not-found');
  });

  it('keeps accounts apart: a key or session cannot touch another account\'s keys', async () => {
    const alice = await signupUser(server);
    const bob = await signupUser(server);
    const steal = await server.fetch(`/api/v1/api-keys/${alice.keyId}/rotate`, { method: 'POST', headers: bob.sessionHeaders });
    await expectProblem(steal, 404, 'not-found');
    expect((await server.fetch('/api/v1/account', { headers: alice.bearer })).status).toBe(200);
    // Managing keys needs the session: an API key cannot mint more keys.
    await expectProblem(await server.fetch('/api/v1/api-keys', { method: 'POST', headers: alice.bearer }), 401, 'unauthenticated');
  });

  it('requires the CSRF token on cookie-authenticated state changes, not on Bearer requests', async () => {
    const user = await signupUser(server);
    const forged = await server.fetch('/api/v1/api-keys', { method: 'POST', headers: { cookie: user.cookie } });
    await expectProblem(forged, 403, 'csrf-token-invalid');
    const wrong = await server.fetch('/api/v1/api-keys', { method: 'POST', headers: { cookie: user.cookie, 'x-csrf-token': 'guess' } });
    await expectProblem(wrong, 403, 'csrf-token-invalid');
    const purchase = await server.fetch('/api/v1/credit-purchases', { method: 'POST', headers: user.bearer, json: { packageId: 'lite' } });
    expect(purchase.status).toBe(201);
  });

  it('lets the logged-in app call the metered endpoints with its session, CSRF token required', async () => {
    const user = await signupUser(server, false);
    const body = { image: 'x' };
    await expectProblem(await server.fetch('/api/v1/pvs', { method: 'POST', headers: { cookie: user.cookie }, json: body }), 403, 'csrf-token-invalid');
    // Past auth and CSRF, the (malformed) body is judged: 400, not 401/403.
    await expectProblem(await server.fetch('/api/v1/pvs', { method: 'POST', headers: user.sessionHeaders, json: body }), 400, 'validation-failed');
  });

  it('lists the credit packages and completes a demo purchase at once, in the ledger', async () => {
    const packages = await (await server.fetch('/api/v1/credit-packages')).json();
    expect(packages.paymentMode).toBe('demo');
    expect(packages.packages.map((p: { name: string; credits: number; priceCents: number }) => [p.name, p.credits, p.priceCents])).toEqual([
      ['Lite', 300, 1990],
      ['Standard', 550, 2999],
      ['Pro', 1600, 7999],
    ]);
    const user = await signupUser(server);
    const response = await server.fetch('/api/v1/credit-purchases', { method: 'POST', headers: user.sessionHeaders, json: { packageId: 'pro' } });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ mode: 'demo', status: 'paid', credits: 1600, balance: 1605, checkoutUrl: null });
    const bad = await server.fetch('/api/v1/credit-purchases', { method: 'POST', headers: user.sessionHeaders, json: { packageId: 'mega' } });
    await expectProblem(bad, 400, 'validation-failed');
  });

  it('puts X-Service-Request-ID and problem+json on 404s and body-parser errors', async () => {
    await expectProblem(await server.fetch('/api/v1/nope'), 404, 'not-found');
    const user = await signupUser(server);
    const broken = await server.fetch('/api/v1/pvs', {
      method: 'POST',
      headers: { ...user.bearer, 'content-type': 'application/json' },
      body: '{"image": ',
    });
    await expectProblem(broken, 400, 'malformed-json');
    const notJson = await server.fetch('/api/v1/pvs', { method: 'POST', headers: { ...user.bearer, 'content-type': 'text/csv' }, body: 'a,b' });
    await expectProblem(notJson, 415, 'unsupported-media-type');
    const tooBig = await server.fetch('/api/v1/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'a@b.test', password: 'x'.repeat(100_000) }),
    });
    await expectProblem(tooBig, 413, 'payload-too-large');
    expect(tooBig.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
    expect(tooBig.headers.get('cross-origin-opener-policy')).toBe('same-origin');
  });

  it('answers requests that Node\'s HTTP parser rejects in the same problem format', async () => {
    const raw = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const { port } = new URL(server.url);
        const socket = connect(Number(port), '127.0.0.1', () => socket.end(request));
        let data = '';
        socket.on('data', (chunk) => (data += chunk));
        socket.on('close', () => resolve(data));
        socket.on('error', reject);
      });
    const huge = await raw(`GET /api/v1/account HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(huge).toMatch(/^HTTP\/1\.1 431 /);
    expect(huge).toMatch(/X-Service-Request-ID: req_/);
    expect(huge).toContain('"type":"/problems/headers-too-large"');
    const garbage = await raw('NOT HTTP AT ALL\r\n\r\n');
    expect(garbage).toMatch(/^HTTP\/1\.1 400 /);
    expect(garbage).toContain('"type":"/problems/malformed-request"');
  });

  it('serves the OpenAPI document generated from the contract, and the docs page', async () => {
    const doc = await (await server.fetch('/api/v1/openapi.json')).json();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/v1/pvs', '/api/v1/segment', '/api/v1/embeddings', '/api/v1/api-keys/{id}/rotate']));
    expect(doc.components.schemas.PvsRequest.properties.image.maxLength).toBe(2_097_152);
    expect(doc.components.schemas.SegmentRequest.properties.prompts.maxItems).toBe(16);
    const docs = await server.fetch('/docs');
    expect(docs.headers.get('content-type')).toMatch(/text\/html/);
    const html = await docs.text();
    expect(html).toContain('/problems/rate-limited');
    expect(html).not.toMatch(/<script|https?:\/\/(?!localhost)/);
    const problemPage = await server.fetch('/problems/rate-limited', { redirect: 'manual' });
    expect(problemPage.status).toBe(302);
    expect(problemPage.headers.get('location')).toBe('/docs#problem-rate-limited');
  });
});
