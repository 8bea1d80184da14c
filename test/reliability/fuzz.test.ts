/**
 * Property-based fuzzing of the running server (fast-check): 10,000 hostile requests against both
 * metered endpoints and the account endpoints — malformed JSON, wrong types, huge and tiny values,
 * broken Base64, files that are not images, NaN/Infinity/negative coordinates, header abuse.
 *
 * For every answer: no 5xx, a status the OpenAPI document lists for that operation, problem+json
 * with a stable type, the status and the request id for every error, X-Service-Request-ID always
 * (never the client's spoofed one); requests invalid by the spec are refused with a 4xx other
 * than 402 (exactly the expected status where it is certain). At the end: no rejected request was
 * ever charged (read from the database), the ledger invariant holds, and the process is alive.
 *
 * Runs on PostgreSQL when reachable (its text rules are the stricter ones: NUL bytes), else SQLite.
 * Seed: FUZZ_SEED (printed); case counts scale with FUZZ_SCALE (default 1 = 10,000 cases).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createBackend, type Backend } from './harness/backends';
import { CookieJar, request, type ApiResponse } from './harness/http';
import { assertLedgerConsistent } from './harness/ledger';
import { UNLIMITED_RATE } from './harness/knobs';
import { postgresForSuite } from './harness/postgres';
import { startServer, type ServerProcess } from './harness/serverProcess';
import { CSRF_COOKIE, CSRF_HEADER, customer, type Session } from './harness/service';
import { decompressionBombPng, tinyPng } from './harness/hostileImages';
import { authArbitrary, bodyBytes, headerArbitrary, oversizedImage, pvsBody, segmentBody, serialise, type AuthChoice, type BodyBytes, type ImagePool } from './fuzz/arbitraries';
import { accountCase, type AccountCase } from './fuzz/accountArbitraries';

const kind = (await postgresForSuite('fuzz')) ? 'postgres' : 'sqlite';
const seed = Number(process.env.FUZZ_SEED ?? 20_261_122);
const scale = Number(process.env.FUZZ_SCALE ?? 1);
const runs = (n: number) => Math.max(1, Math.round(n * scale));
const COUNTS = { pvs: runs(3_500), segment: runs(1_200), headers: runs(1_500), account: runs(3_000), raw: runs(700), oversized: runs(100) };

const pool: ImagePool = {
  valid: [
    { base64: tinyPng(32).toString('base64'), mediaType: 'image/png', imageId: 'fz-tiny-32', width: 32, height: 32 },
    { base64: tinyPng(48).toString('base64'), mediaType: 'image/png', imageId: 'fz-tiny-48', width: 48, height: 48 },
  ],
};

interface Sent {
  readonly label: string;
  readonly method: string;
  readonly path: string;
  readonly mustReject: boolean;
  readonly exactStatus?: number;
  /** The request is invalid, but only decoding the whole image shows it: an empty account may hear 402 first. */
  readonly paymentMayComeFirst?: boolean;
  readonly response: ApiResponse;
  readonly note: string;
}

describe(`fuzzing the running server (${kind}, seed ${seed})`, () => {
  let backend: Backend;
  let server: ServerProcess;
  let documented: Map<string, Set<number>>;
  /** Pays for the metered cases. */
  let payer: { session: Session; key: string; keyId: string };
  /** Owns the session the account cases use. */
  let holder: { session: Session; key: string; keyId: string };
  /** Has spent its free credits: valid metered requests end in 402 without running the engine. */
  let broke: { key: string };
  const sent: Sent[] = [];
  const undocumented = new Map<string, number>();
  const statusCounts = new Map<string, number>();

  beforeAll(async () => {
    console.info(`[fuzz] backend ${kind}, FUZZ_SEED=${seed}, cases ${JSON.stringify(COUNTS)}`);
    backend = await createBackend(kind, 'fuzz');
    server = await startServer({ name: 'fuzz', env: { ...backend.env, ...UNLIMITED_RATE, LOG_LEVEL: 'warn' } });
    const openapi = (await request(server.baseUrl, '/api/v1/openapi.json')).body;
    documented = new Map();
    for (const [path, operations] of Object.entries<Record<string, { responses: Record<string, unknown> }>>(openapi.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        documented.set(`${method.toUpperCase()} ${path}`, new Set(Object.keys(operation.responses).map(Number)));
      }
    }
    const a = await customer(server.baseUrl, { tag: 'fuzzpayer', buy: ['pro'] });
    payer = { session: a.session, key: a.key, keyId: a.apiKey.id };
    const c = await customer(server.baseUrl, { tag: 'fuzzbroke' });
    for (let i = 0; i < 5; i++) {
      const spent = await request(server.baseUrl, '/api/v1/pvs', { json: { image: pool.valid[0].base64, imageId: pool.valid[0].imageId, points: [{ x: 16, y: 16 + i }] }, bearer: c.key });
      expect(spent.status, spent.text).toBe(200);
      sent.push({ label: 'setup', method: 'POST', path: '/api/v1/pvs', mustReject: false, response: spent, note: 'spend the free credits' });
    }
    broke = { key: c.key };
    const b = await customer(server.baseUrl, { tag: 'fuzzholder' });
    holder = { session: b.session, key: b.key, keyId: b.apiKey.id };
  });

  afterAll(async () => {
    const counts = [...statusCounts].sort().map(([k, v]) => `${k}×${v}`).join(' ');
    console.info(`[fuzz] ${sent.length} requests; answers: ${counts}`);
    if (undocumented.size) console.info(`[fuzz] undocumented statuses: ${JSON.stringify(Object.fromEntries(undocumented))}`);
    await server?.stop();
    await backend?.dispose();
  });

  /** The OpenAPI operation a concrete path belongs to. */
  function operationOf(method: string, path: string): string {
    // As sent: the client resolves `..` segments before the request leaves.
    const clean = new URL(path, 'http://client.invalid').pathname;
    if (/^\/api\/v1\/api-keys\/[^/]*\/rotate$/.test(clean)) return `${method} /api/v1/api-keys/{id}/rotate`;
    if (/^\/api\/v1\/api-keys\/[^/]*$/.test(clean)) return `${method} /api/v1/api-keys/{id}`;
    return `${method} ${clean}`;
  }

  function check(entry: Sent): void {
    const { response: r } = entry;
    const context = `${entry.label} ${entry.method} ${entry.path.slice(0, 80)} [${entry.note}] → ${r.status} ${r.text.slice(0, 300)}`;
    statusCounts.set(`${entry.label}:${r.status}`, (statusCounts.get(`${entry.label}:${r.status}`) ?? 0) + 1);
    expect(r.status, `no 5xx: ${context}`).toBeLessThan(500);
    const requestId = r.headers.get('x-service-request-id');
    expect(requestId, `X-Service-Request-ID: ${context}`).toBeTruthy();
    expect(requestId).not.toBe('spoofed-id');
    const operation = operationOf(entry.method, entry.path);
    const allowed = documented.get(operation);
    // Unknown routes and methods are answered by the generic 404/405 problem, documented once, and a
    // URL that is not validly percent-encoded by 400 malformed-request.
    const isDocumented = allowed ? allowed.has(r.status) : [400, 404, 405].includes(r.status);
    if (!isDocumented) undocumented.set(`${operation} ${r.status}`, (undocumented.get(`${operation} ${r.status}`) ?? 0) + 1);
    if (r.status >= 400) {
      expect(r.headers.get('content-type'), `problem+json: ${context}`).toMatch(/^application\/problem\+json/);
      expect(r.body, `problem body: ${context}`).toBeTypeOf('object');
      expect(r.body.type, context).toMatch(/^\/problems\/[a-z-]+$/);
      expect(r.body.status, context).toBe(r.status);
      expect(r.body.title, context).toBeTypeOf('string');
      expect(r.body.requestId, context).toBe(requestId);
      if (r.status === 401) expect(r.headers.get('www-authenticate'), context).toMatch(/^Bearer/);
      if (r.status === 409 || r.status === 429) {
        if (!/idempotency-key-reused|email-taken/.test(r.body.type)) expect(r.headers.get('retry-after'), context).toMatch(/^\d+$/);
      }
    }
    if (entry.mustReject) {
      const refusals = [400, 401, 403, 404, 405, 409, 413, 415, ...(entry.paymentMayComeFirst ? [402] : [])];
      expect(refusals, `must be refused: ${context}`).toContain(r.status);
    }
    if (entry.exactStatus !== undefined) expect(r.status, `exact status: ${context}`).toBe(entry.exactStatus);
  }

  /** `rich`: the account with credits (the engine runs); otherwise one with none (402 before the engine). */
  function authHeader(auth: AuthChoice, rich = true): Record<string, string> {
    if (auth.kind === 'valid') return { authorization: `Bearer ${rich ? payer.key : broke.key}` };
    if (auth.kind === 'missing') return {};
    return { authorization: auth.value };
  }

  async function sendMetered(label: 'pvs' | 'segment', path: string, body: BodyBytes, headers: Record<string, string>, mustReject: boolean, exactStatus: number | undefined, note: string, paymentMayComeFirst = false) {
    const response = await request(server.baseUrl, path, {
      method: 'POST',
      rawBody: body.body ?? '',
      contentType: body.contentType,
      headers,
      timeoutMs: 60_000,
    });
    const entry: Sent = { label, method: 'POST', path, mustReject, exactStatus, paymentMayComeFirst, response, note };
    sent.push(entry);
    check(entry);
  }

  /** Metered case: the body, its bytes, the headers and the credential each may break the request. */
  function meteredProperty(label: 'pvs' | 'segment', path: string, bodyArb: ReturnType<typeof pvsBody>, withHeaders: boolean) {
    return fc.asyncProperty(
      bodyArb.chain((judged) => bodyBytes(serialise(judged.value)).map((bytes) => ({ judged, bytes }))),
      withHeaders ? headerArbitrary : fc.constant({ headers: {}, valid: true, hasIdempotencyKey: false, note: '' }),
      withHeaders ? authArbitrary : fc.constant<AuthChoice>({ kind: 'valid' }),
      // One valid request in 8 is paid and runs the engine; the rest hit an empty account (402).
      fc.nat({ max: 7 }).map((n) => n === 0),
      async ({ judged, bytes }, headers, auth, rich) => {
        const authValid = auth.kind === 'valid';
        const requestValid = judged.valid && bytes.intact && headers.valid;
        const mustReject = !requestValid || !authValid;
        // A bad credential on an otherwise readable request is exactly 401 (auth runs before the body).
        const exactStatus = !authValid ? 401 : undefined;
        // The header check before the charge reads dimensions only; a PNG whose pixel data is cut or
        // corrupt is found by the full decode after it (then refunded as 400). With no credits, 402 comes first.
        const paymentMayComeFirst = !rich && authValid && /image-not-image-(truncatedPng|corruptPng)/.test(judged.note);
        await sendMetered(label, path, bytes, { ...headers.headers, ...authHeader(auth, rich) }, mustReject, exactStatus, `${judged.note} | ${bytes.note} | ${headers.note}${rich ? '' : ' | broke'}`, paymentMayComeFirst);
      },
    );
  }

  it(`PVS bodies: ${COUNTS.pvs} cases`, async () => {
    await fc.assert(meteredProperty('pvs', '/api/v1/pvs', pvsBody(pool, 4), false), { numRuns: COUNTS.pvs, seed, endOnFailure: true });
  });

  it(`segment bodies: ${COUNTS.segment} cases`, async () => {
    await fc.assert(meteredProperty('segment', '/api/v1/segment', segmentBody(pool, 2), false), { numRuns: COUNTS.segment, seed: seed + 1, endOnFailure: true });
  });

  it(`headers and credentials on both endpoints: ${COUNTS.headers} cases`, async () => {
    const pvsFixed = fc.constant({ value: { image: pool.valid[0].base64, imageId: pool.valid[0].imageId, points: [{ x: 16, y: 16 }] }, valid: true, note: 'fixed-valid' });
    await fc.assert(meteredProperty('pvs', '/api/v1/pvs', pvsFixed, true), { numRuns: Math.ceil(COUNTS.headers * 0.8), seed: seed + 2, endOnFailure: true });
    const segmentFixed = fc.constant({ value: { image: 'not base64!' }, valid: false, note: 'fixed-invalid' });
    await fc.assert(meteredProperty('segment', '/api/v1/segment', segmentFixed, true), { numRuns: Math.floor(COUNTS.headers * 0.2), seed: seed + 3, endOnFailure: true });
  });

  it(`raw bodies that are not the JSON object asked for: ${COUNTS.raw} cases`, async () => {
    const raw = fc.oneof(
      fc.string({ maxLength: 200 }).map((text) => ({ body: text, contentType: 'application/json', intact: false, note: 'random-text' })),
      fc.uint8Array({ maxLength: 400 }).map((bytes) => ({ body: Buffer.from(bytes), contentType: 'application/json', intact: false, note: 'random-bytes' })),
      fc.jsonValue({ maxDepth: 3 }).filter((v) => typeof v !== 'object' || v === null || Array.isArray(v)).map((v) => ({ body: JSON.stringify(v), contentType: 'application/json', intact: false, note: 'json-non-object' })),
    );
    await fc.assert(
      fc.asyncProperty(raw, fc.constantFrom('/api/v1/pvs', '/api/v1/segment'), async (bytes, path) => {
        await sendMetered(path.endsWith('pvs') ? 'pvs' : 'segment', path, bytes, authHeader({ kind: 'valid' }), true, undefined, bytes.note);
      }),
      { numRuns: COUNTS.raw, seed: seed + 4, endOnFailure: true },
    );
  });

  it(`oversized images and payloads: ${COUNTS.oversized} cases → 413`, async () => {
    await fc.assert(
      fc.asyncProperty(oversizedImage, fc.constantFrom('/api/v1/pvs', '/api/v1/segment'), fc.boolean(), async (image, path, asDataUri) => {
        const value = asDataUri ? `data:image/png;base64,${image}` : image;
        const body = path.endsWith('pvs') ? { image: value, points: [{ x: 1, y: 1 }] } : { image: value, prompts: ['dog'] };
        await sendMetered(path.endsWith('pvs') ? 'pvs' : 'segment', path, { body: JSON.stringify(body), contentType: 'application/json', intact: true, note: '' }, authHeader({ kind: 'valid' }), true, 413, `image ${value.length} chars`);
      }),
      { numRuns: COUNTS.oversized, seed: seed + 5, endOnFailure: true },
    );
  });

  it(`account endpoints: ${COUNTS.account} cases`, async () => {
    const existingEmail = payer.session.email;
    const garbageJar = new CookieJar();
    garbageJar.absorb(['mw_session=forged-session-token; Path=/', 'mw_csrf=forged; Path=/']);
    await fc.assert(
      fc.asyncProperty(accountCase, async (c: AccountCase) => {
        const path = c.path.replace('{otherKeyId}', payer.keyId).replace('{ownKeyId}', holder.keyId);
        const headers: Record<string, string> = {};
        let cookies: CookieJar | undefined;
        switch (c.credential) {
          case 'session+csrf':
            cookies = holder.session.cookies;
            headers[CSRF_HEADER] = holder.session.cookies.get(CSRF_COOKIE) ?? '';
            break;
          case 'session-no-csrf':
            cookies = holder.session.cookies;
            break;
          case 'session-wrong-csrf':
            cookies = holder.session.cookies;
            headers[CSRF_HEADER] = 'not-the-token';
            break;
          case 'garbage-cookie':
            cookies = garbageJar;
            break;
          case 'bearer':
            headers.authorization = `Bearer ${holder.key}`;
            break;
          case 'none':
            break;
        }
        let body = c.body;
        if (body && typeof body.body === 'string' && body.body.includes('{existingEmail}')) {
          body = { ...body, body: body.body.replaceAll('{existingEmail}', existingEmail) };
        }
        // Sign-up and login set cookies: never let them replace the holder's session.
        const jar = cookies === holder.session.cookies && /auth\/(signup|login)/.test(path) ? undefined : cookies;
        const response = await request(server.baseUrl, path, {
          method: c.method,
          ...(body ? { rawBody: body.body ?? '', contentType: body.contentType } : {}),
          headers,
          cookies: jar ? new CookieJarView(jar) : undefined,
        });
        const entry: Sent = { label: 'account', method: c.method, path, mustReject: c.mustReject, exactStatus: c.exactStatus, response, note: c.note };
        sent.push(entry);
        check(entry);
      }),
      { numRuns: COUNTS.account, seed: seed + 6, endOnFailure: true },
    );
  });

  it('decompression bombs: a tiny PNG declaring 900 M pixels is refused with 400 and never charged', async () => {
    const bomb = decompressionBombPng().toString('base64');
    const response = await request(server.baseUrl, '/api/v1/pvs', {
      json: { image: bomb, points: [{ x: 1, y: 1 }] },
      bearer: payer.key,
    });
    const entry: Sent = { label: 'bomb', method: 'POST', path: '/api/v1/pvs', mustReject: true, exactStatus: 400, response, note: `bomb ${bomb.length} chars` };
    sent.push(entry);
    check(entry);
    expect(response.body.type).toMatch(/invalid-image$/);
  });

  it('every status answered is documented in the OpenAPI document', () => {
    expect(Object.fromEntries(undocumented)).toEqual({});
  });

  // A PNG whose pixel data is cut is found by the full decode after the charge: it is answered 400
  // and refunded against that charge, so it nets to nothing. Only charges without a refund count.
  it('no rejected request was charged, the ledger is consistent, the process is alive', async () => {
    expect(sent.length).toBeGreaterThan(0);
    const rejectedIds = new Set(sent.filter((s) => s.response.status !== 200).map((s) => s.response.headers.get('x-service-request-id')));
    const charged = await backend.db.all<{ request_id: string; state: string; response_status: number | null }>(`
      SELECT t.request_id AS request_id, t.state AS state, t.response_status AS response_status
      FROM attempts t JOIN ledger_entries c ON c.kind = 'charge' AND c.reference = t.id
      WHERE NOT EXISTS (SELECT 1 FROM ledger_entries r WHERE r.kind = 'refund' AND r.reference = t.id)`);
    const chargedRejections = charged.filter((a) => rejectedIds.has(a.request_id));
    expect(chargedRejections, `attempts charged although their request was refused: ${JSON.stringify(chargedRejections.map((a) => ({ ...a, sent: sent.find((x) => x.response.headers.get('x-service-request-id') === a.request_id)?.note })))}`).toEqual([]);
    // Every kept charge belongs to a request answered 200.
    const okIds = new Set(sent.filter((s) => s.response.status === 200).map((s) => s.response.headers.get('x-service-request-id')));
    for (const a of charged.filter((c) => c.state === 'completed')) expect(okIds.has(a.request_id)).toBe(true);
    await assertLedgerConsistent(backend.db);
    expect(server.isRunning()).toBe(true);
    expect((await request(server.baseUrl, '/api/v1/health')).status).toBe(200);
    expect(server.output(), 'no internal error logged').not.toMatch(/"level":50/);
  });
});

/** Lets a case read the holder's cookies without absorbing cookies the response sets. */
class CookieJarView extends CookieJar {
  constructor(private readonly source: CookieJar) {
    super();
  }
  override header(): string {
    return this.source.header();
  }
  override absorb(): void {}
}
