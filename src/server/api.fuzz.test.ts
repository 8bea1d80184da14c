/**
 * Property-based abuse of the metered endpoints and the account endpoints over real HTTP (no
 * engine: a request that passes every check gets 503 service-busy, which is fine here). Every
 * answer must be a documented status with a problem+json body and a request id, and no credit
 * may move. The larger, engine-backed fuzzing lives in test/reliability.
 */
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { creditsOf, NO_INFERENCE, signupUser, startTestServer, type TestServer, type TestUser } from '../../test/support/server/harness';

const DOCUMENTED = new Set([400, 401, 402, 403, 404, 409, 413, 415, 429, 503]);

const number = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(-1, 0, 1e308, -0, 1e-320, 2 ** 53),
  fc.string({ maxLength: 4 }),
  fc.constant(null),
);
const point = fc.record({ x: number, y: number, positive: fc.oneof(fc.boolean(), fc.string({ maxLength: 3 }), fc.constant(undefined)) }, { requiredKeys: [] });
const image = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.base64String({ maxLength: 64 }),
  fc.constantFrom('data:image/png;base64,', 'data:;base64,AAAA', 'data:image/png;base64,iVBORw0KGgo=', 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='),
  fc.integer(),
  fc.constant(null),
);
const pvsBody = fc.record(
  {
    image,
    points: fc.oneof(fc.array(point, { maxLength: 4 }), fc.string({ maxLength: 3 }), fc.constant(null)),
    box: fc.oneof(fc.record({ x: number, y: number, width: number, height: number }, { requiredKeys: [] }), fc.constant(null)),
    imageId: fc.oneof(fc.string({ maxLength: 300 }), fc.integer()),
    multimaskOutput: fc.oneof(fc.boolean(), fc.string({ maxLength: 3 })),
    prompts: fc.oneof(fc.array(fc.string({ maxLength: 600 }), { maxLength: 18 }), fc.string({ maxLength: 3 })),
  },
  { requiredKeys: [] },
);
const rawBody = fc.oneof(
  pvsBody.map((b) => JSON.stringify(b)),
  fc.string({ maxLength: 50 }),
  fc.constantFrom('', '{', '[]', 'null', '"x"', '{"__proto__":{"a":1}}', '{"constructor":{"prototype":{}}}', '{"image":"\\u0000"}'),
);
const headerValue = fc.oneof(fc.string({ maxLength: 140 }).filter((s) => /^[\x20-\x7e]*$/.test(s)), fc.constantFrom('true', 'TRUE', 'false', '', ' ', 'a'.repeat(128), 'a'.repeat(129)));

describe('fuzzing the API surface (sqlite)', () => {
  let server: TestServer;
  let user: TestUser;
  beforeAll(async () => {
    server = await startTestServer({ db: 'sqlite', backend: NO_INFERENCE });
    user = await signupUser(server);
  });
  afterEach(async () => server.checkLedger());
  afterAll(async () => server?.cleanup());

  it('answers every malformed metered request with a documented status and problem+json, charging nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/api/v1/pvs', '/api/v1/segment', '/api/v1/everything', '/api/v1/embeddings'),
        rawBody,
        fc.option(headerValue),
        fc.option(headerValue),
        fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded'),
        async (path, body, key, force, contentType) => {
          const headers: Record<string, string> = { ...user.bearer, 'content-type': contentType };
          if (key !== null) headers['idempotency-key'] = key;
          if (force !== null) headers['x-force-refresh'] = force;
          const response = await server.fetch(path, { method: 'POST', headers, body });
          expect(DOCUMENTED.has(response.status), `${response.status} for ${body.slice(0, 200)}`).toBe(true);
          expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
          expect(response.headers.get('x-service-request-id')).toMatch(/^req_/);
          const problem = await response.json();
          expect(problem.type).toMatch(/^\/problems\/[a-z-]+$/);
          expect(problem.status).toBe(response.status);
          if (response.status === 503) expect(problem.type).toBe('/problems/service-busy');
        },
      ),
      { numRuns: 400 },
    );
    expect(await creditsOf(server, user)).toBe(5);
  });

  it('answers malformed account requests with documented statuses', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/api/v1/auth/signup', '/api/v1/auth/login', '/api/v1/credit-purchases', '/api/v1/api-keys'),
        fc.oneof(
          fc.record({ email: fc.oneof(fc.string({ maxLength: 300 }), fc.emailAddress(), fc.integer()), password: fc.oneof(fc.string({ maxLength: 300 }), fc.integer()), packageId: fc.string({ maxLength: 10 }) }, { requiredKeys: [] }).map((b) => JSON.stringify(b)),
          fc.string({ maxLength: 40 }),
        ),
        fc.constantFrom('bearer', 'cookie', 'none'),
        async (path, body, auth) => {
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          if (auth === 'bearer') Object.assign(headers, user.bearer);
          if (auth === 'cookie') headers.cookie = user.cookie;
          const response = await server.fetch(path, { method: 'POST', headers, body });
          expect([200, 201, 400, 401, 403, 409, 413, 415].includes(response.status), `${response.status} ${path} ${body}`).toBe(true);
          expect(response.headers.get('x-service-request-id')).toMatch(/^req_/);
          if (response.status >= 400) expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        },
      ),
      { numRuns: 150 },
    );
  });
});
