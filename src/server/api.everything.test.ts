/**
 * POST /api/v1/everything over real HTTP, a real database and the real engine (onnxruntime-node in
 * a worker thread, the detectors and SAM on a real photo): its own price, charged once, replayed
 * free under its Idempotency-Key, refunded when empty, and bad input refused before any charge.
 * The ledger invariant is checked after every test.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LIMITS } from '../contract/limits';
import { EverythingResponse } from '../contract/segmentation';
import { closeSharedEngine, countingJobs, creditsOf, DATABASES, expectProblem, padPng, SAMPLES_DIR, sampleBase64, sharedEngine, signupUser, startTestServer, type TestServer, type TestUser } from '../../test/support/server/harness';

const CAT = `data:image/png;base64,${sampleBase64('chelsea.png')}`;
const COFFEE = sampleBase64('coffee.png');
/** Priced apart from /pvs and /segment (1 each): a charge of 2 can only be this key's. */
const PRICES = { 'service:visual': 1, 'service:text': 1, 'service:everything': 2, 'service:embedding': 1, 'service:auto-label': 1 };

afterAll(async () => closeSharedEngine());

describe.each(DATABASES)('POST /api/v1/everything (%s)', (dbKind) => {
  let server: TestServer;
  let engine: ReturnType<typeof countingJobs>;
  let user: TestUser;
  const everything = (body: unknown, headers: Record<string, string> = {}) =>
    server.fetch('/api/v1/everything', { method: 'POST', headers: { ...user.bearer, ...headers }, json: body });
  const ledgerOf = async (u: TestUser) =>
    server.services.db.kysely
      .selectFrom('ledger_entries as l')
      .innerJoin('accounts as a', 'a.id', 'l.account_id')
      .select(['l.kind', 'l.amount'])
      .where('a.email', '=', u.email)
      .orderBy('l.id')
      .execute();

  beforeAll(async () => {
    server = await startTestServer({ db: dbKind, backend: (engine = countingJobs(await sharedEngine())), config: { prices: PRICES } });
  });
  beforeEach(async () => {
    server.services.faults.rates = {};
    user = await signupUser(server);
  });
  afterEach(async () => server.checkLedger());
  afterAll(async () => server?.cleanup());

  it('charges the price of service:everything once and answers every object, the detector’s cat among them, best first', async () => {
    const response = await everything({ image: CAT });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-service-refunded')).toBeNull();
    const body = EverythingResponse.parse(await response.json());
    expect(body.predictions.some((p) => p.source === 'detector' && p.label === 'cat')).toBe(true);
    expect(body.predictions.length).toBeLessThanOrEqual(100);
    const confidences = body.predictions.map((p) => p.confidence);
    expect(confidences).toEqual([...confidences].sort((a, b) => b - a));
    for (const [x, y] of body.predictions.flatMap((p) => p.masks.flat())) {
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThanOrEqual(451);
      expect(y).toBeGreaterThanOrEqual(0);
      expect(y).toBeLessThanOrEqual(300);
    }
    expect(await creditsOf(server, user)).toBe(LIMITS.signupCredits - 2);
    expect((await ledgerOf(user)).map((e) => [e.kind, e.amount])).toEqual([
      ['signup_grant', LIMITS.signupCredits],
      ['charge', -2],
    ]);
  });

  it('replays the stored answer under the same Idempotency-Key without a charge or an engine run; another body under it is 409', async () => {
    const key = { 'idempotency-key': 'everything-once' };
    const first = await everything({ image: CAT }, key);
    expect(first.status).toBe(200);
    const firstBody = await first.text();
    const jobs = engine.jobs;
    const replay = await everything({ image: CAT }, key);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('x-idempotent-replayed')).toBe('true');
    expect(replay.headers.get('x-service-original-request-id')).toBe(first.headers.get('x-service-request-id'));
    expect(await replay.text()).toBe(firstBody);
    expect(engine.jobs).toBe(jobs);
    await expectProblem(await everything({ image: COFFEE }, key), 409, 'idempotency-key-reused');
    expect(await creditsOf(server, user)).toBe(LIMITS.signupCredits - 2);
  });

  it('keeps an empty answer a 200 with no predictions, refunded (X-Service-Refunded), also on replay', async () => {
    server.services.faults.rates = { empty: 1 };
    const key = { 'idempotency-key': 'everything-empty' };
    const empty = await everything({ image: CAT }, key);
    expect(empty.status).toBe(200);
    expect(empty.headers.get('x-service-refunded')).toBe('true');
    expect(await empty.json()).toEqual({ predictions: [] });
    expect(await creditsOf(server, user)).toBe(LIMITS.signupCredits);
    const replay = await everything({ image: CAT }, key);
    expect(replay.headers.get('x-idempotent-replayed')).toBe('true');
    expect(replay.headers.get('x-service-refunded')).toBe('true');
    expect((await ledgerOf(user)).map((e) => [e.kind, e.amount])).toEqual([
      ['signup_grant', LIMITS.signupCredits],
      ['charge', -2],
      ['refund', 2],
    ]);
  });

  it('refunds an engine failure (500 engine-failure, X-Service-Refunded)', async () => {
    server.services.faults.rates = { engine: 1 };
    const failed = await everything({ image: CAT });
    const problem = await expectProblem(failed, 500, 'engine-failure');
    expect(problem.refunded).toBe(true);
    expect(failed.headers.get('x-service-refunded')).toBe('true');
    expect(await creditsOf(server, user)).toBe(LIMITS.signupCredits);
  });

  it('refuses bad input with 400 problem+json before anything is charged or run', async () => {
    const jobs = engine.jobs;
    await expectProblem(await everything({}), 400, 'validation-failed');
    await expectProblem(await everything({ image: 42 }), 400, 'validation-failed');
    await expectProblem(await everything({ image: Buffer.from('not an image at all').toString('base64') }), 400, 'invalid-image');
    await expectProblem(await everything({ image: CAT }, { 'idempotency-key': 'spaces are not allowed' }), 400, 'invalid-header');
    const malformed = await server.fetch('/api/v1/everything', { method: 'POST', headers: { ...user.bearer, 'content-type': 'application/json' }, body: '{"image":' });
    await expectProblem(malformed, 400, 'malformed-json');
    expect(engine.jobs).toBe(jobs);
    expect(await creditsOf(server, user)).toBe(LIMITS.signupCredits);
    expect(await ledgerOf(user)).toHaveLength(1);
  });

  it('refuses an image over 2,097,152 characters and a body over the limit with 413: nothing charged', async () => {
    const png = padPng(readFileSync(join(SAMPLES_DIR, 'chelsea.png')), (LIMITS.imageMaxChars / 4) * 3 + 3);
    await expectProblem(await everything({ image: png.toString('base64') }), 413, 'image-too-large');
    await expectProblem(await everything({ image: 'A'.repeat(2_400_000) }), 413, 'payload-too-large');
    expect(await creditsOf(server, user)).toBe(LIMITS.signupCredits);
  });
});

describe.each(DATABASES)('POST /api/v1/everything: rate limit (%s)', (dbKind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ db: dbKind, backend: await sharedEngine(), rateLimitPerSecond: 2 });
  });
  afterEach(async () => server.checkLedger());
  afterAll(async () => server?.cleanup());

  it('rate limits like the other metered routes: 429 with Retry-After beyond the per-second limit, nothing charged', async () => {
    const user = await signupUser(server);
    server.clock.freeze();
    try {
      const bad = { image: 'x' };
      for (let i = 0; i < 2; i += 1) {
        expect((await server.fetch('/api/v1/everything', { method: 'POST', headers: user.bearer, json: bad })).status).toBe(400);
      }
      const limited = await server.fetch('/api/v1/everything', { method: 'POST', headers: user.bearer, json: { image: CAT } });
      await expectProblem(limited, 429, 'rate-limited');
      expect(limited.headers.get('retry-after')).toBe('1');
    } finally {
      server.clock.unfreeze();
    }
    expect(await creditsOf(server, user)).toBe(LIMITS.signupCredits);
  });

  it('is paid with credits only: without a key or session it is 401', async () => {
    const response = await server.fetch('/api/v1/everything', { method: 'POST', json: { image: CAT } });
    await expectProblem(response, 401, 'unauthenticated');
  });
});
