/**
 * Secrets at rest and in logs, on a real server process with the most verbose log level:
 * after sign-up, login (right and wrong password), key creation, rotation, revocation and metered
 * calls, neither the database (every text column of every table) nor anything the process wrote
 * contains a password, an API key or a session token in clear. Passwords are Argon2id hashes.
 * (Cookie flags, CSRF and account isolation are asserted in src/server/api.accounts.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackend, type Backend } from './harness/backends';
import { CookieJar, request } from './harness/http';
import { postgresForSuite } from './harness/postgres';
import { startServer, type ServerProcess } from './harness/serverProcess';
import { createApiKey, customer, sessionCall } from './harness/service';
import { tinyPng } from './harness/hostileImages';
import { UNLIMITED_RATE } from './harness/knobs';

const kind = (await postgresForSuite('security')) ? 'postgres' : 'sqlite';
const tiny = tinyPng(32).toString('base64');

describe(`secrets never stored or logged in clear (${kind})`, () => {
  let backend: Backend;
  let server: ServerProcess;
  const secrets = new Map<string, string>();

  beforeAll(async () => {
    backend = await createBackend(kind, 'security');
    server = await startServer({ name: 'security', env: { ...backend.env, ...UNLIMITED_RATE, LOG_LEVEL: 'trace' } });
    const base = server.baseUrl;

    const { session, key, apiKey } = await customer(base, { tag: 'secret' });
    secrets.set('password', session.password);
    secrets.set('first API key', key);
    secrets.set('sign-up session token', session.cookies.get('mw_session') ?? '');

    // A second session by login, and a failed login carrying a different password.
    const jar = new CookieJar();
    expect((await request(base, '/api/v1/auth/login', { json: { email: session.email, password: session.password }, cookies: jar })).status).toBe(200);
    secrets.set('login session token', jar.get('mw_session') ?? '');
    const wrongPassword = `${session.password}-wrong`;
    secrets.set('wrong password', wrongPassword);
    expect((await request(base, '/api/v1/auth/login', { json: { email: session.email, password: wrongPassword } })).status).toBe(401);

    // Metered calls with the key, then rotation (old key refused), a second key, revocation.
    const pvs = (bearer: string) => request(base, '/api/v1/pvs', { json: { image: tiny, points: [{ x: 16, y: 16 }] }, bearer });
    expect((await pvs(key)).status).toBe(200);
    const rotated = await sessionCall(session, `/api/v1/api-keys/${apiKey.id}/rotate`, { method: 'POST', json: {} });
    expect(rotated.status).toBe(201);
    secrets.set('rotated API key', rotated.body.key);
    expect((await pvs(key)).status).toBe(401);
    expect((await pvs(rotated.body.key)).status).toBe(200);
    const second = await createApiKey(session);
    secrets.set('second API key', second.key);
    expect((await sessionCall(session, `/api/v1/api-keys/${second.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await pvs(second.key)).status).toBe(401);

    for (const [name, value] of secrets) expect(value.length, name).toBeGreaterThanOrEqual(16);
  });

  afterAll(async () => {
    await server?.stop();
    await backend?.dispose();
  });

  it('the logs contain no password, API key or session token', () => {
    const output = server.output();
    expect(output.length).toBeGreaterThan(0);
    for (const [name, value] of secrets) expect(output.includes(value), `${name} appears in the server output`).toBe(false);
  });

  it('no table holds a password, API key or session token in clear; passwords are Argon2id hashes', async () => {
    const tables =
      kind === 'postgres'
        ? await backend.db.all<{ name: string }>(
            `SELECT table_schema || '.' || table_name AS name FROM information_schema.tables
             WHERE table_schema NOT IN ('pg_catalog', 'information_schema') AND table_type = 'BASE TABLE'`,
          )
        : await backend.db.all<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`);
    expect(tables.map((t) => t.name).some((n) => n.endsWith('api_keys'))).toBe(true);
    let rows = 0;
    for (const { name } of tables) {
      const dump = JSON.stringify(await backend.db.all(`SELECT * FROM ${name}`));
      rows += dump.length;
      for (const [secret, value] of secrets) expect(dump.includes(value), `${secret} stored in ${name}`).toBe(false);
    }
    expect(rows).toBeGreaterThan(0);
    const hashes = await backend.db.all<{ password_hash: string }>('SELECT password_hash FROM accounts');
    expect(hashes.length).toBeGreaterThan(0);
    for (const { password_hash } of hashes) expect(password_hash).toMatch(/^\$argon2id\$/);
  });
});
