/**
 * The billing rules of the spec over real HTTP, a real database and the real engine
 * (onnxruntime-node in a worker thread, on a real photo): charges, idempotency, reuse windows,
 * refunds (with FAULT_INJECTION), recovery points, limits. The ledger invariant is checked after
 * every test. Engine calls reuse one cached embedding (imageId), so most cost one decoder run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LIMITS } from '../contract/limits';
import { PvsRequest } from '../contract/segmentation';
import { Credits } from './domain/metered/credits';
import { MeteredCalls, type MeteredCall } from './domain/metered/runner';
import { DEFAULT_BILLING_OPTIONS } from './domain/services';
import { readUpload } from './domain/imageField';
import { fingerprintBody } from './domain/segmentation';
import { FaultInjector } from './domain/faults';
import { bodyDigest, requestFingerprint } from './domain/fingerprint';
import { WorkerPool } from './inference/pool';
import { PNG } from 'pngjs';
import { modelFrame } from '../engine/frame';
import { mirrorImage, mirrorPoint } from '../engine/mirror';
import { signedArea2 } from '../engine/polygons';
import { closeSharedEngine, countingJobs, creditsOf, DATABASES, expectProblem, NO_INFERENCE, padPng, SAMPLES_DIR, sampleBase64, sharedEngine, signupUser, startTestServer, type TestServer, type TestUser } from '../../test/support/server/harness';

const CAT = sampleBase64('chelsea.png');
const CAT_DATA_URI = `data:image/png;base64,${CAT}`;
// No imageId: the engine caches the embedding under the image's content hash, shared by all
// accounts (client-chosen ids are namespaced per account), so the suite encodes the photo once.
const pvs = (x = 220, y = 160, extra: Record<string, unknown> = {}) => ({
  image: CAT_DATA_URI,
  points: [{ x, y, positive: true }],
  multimaskOutput: false,
  ...extra,
});

afterAll(async () => closeSharedEngine());

/** The runner with credits of its own process (instance id), outside HTTP: the balance hint is the call's. */
function creditCalls(server: TestServer, accountId: string, instanceId: string) {
  const credits = new Credits(server.services.db, server.clock, new FaultInjector(), instanceId, DEFAULT_BILLING_OPTIONS);
  const runner = new MeteredCalls(new FaultInjector(), DEFAULT_BILLING_OPTIONS);
  return { run: (call: MeteredCall<unknown> & { balanceHint?: number }) => runner.run(call, credits.method(accountId, call.balanceHint)) };
}

describe.each(DATABASES)('metered calls and billing (%s)', (dbKind) => {
  let server: TestServer;
  let engine: ReturnType<typeof countingJobs>;
  let user: TestUser;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}, who: TestUser = user) =>
    server.fetch(path, { method: 'POST', headers: { ...who.bearer, ...headers }, json: body });
  const ledgerOf = async (u: TestUser) =>
    server.services.db.kysely
      .selectFrom('ledger_entries as l')
      .innerJoin('accounts as a', 'a.id', 'l.account_id')
      .select(['l.kind', 'l.amount', 'l.reference'])
      .where('a.email', '=', u.email)
      .orderBy('l.id')
      .execute();

  beforeAll(async () => {
    server = await startTestServer({ db: dbKind, backend: (engine = countingJobs(await sharedEngine())) });
  });
  beforeEach(async () => {
    server.services.faults.rates = {};
    user = await signupUser(server);
  });
  afterEach(async () => server.checkLedger());
  afterAll(async () => server?.cleanup());

  it('charges one credit for a successful PVS call and answers in the spec shape', async () => {
    const response = await post('/api/v1/pvs', pvs());
    expect(response.status).toBe(200);
    expect(response.headers.get('x-service-request-id')).toMatch(/^req_/);
    expect(response.headers.get('x-service-refunded')).toBeNull();
    const body = await response.json();
    expect(body.imageId).toMatch(/\S/);
    expect(body.prompts).toHaveLength(1);
    expect(body.prompts[0].predictions).toHaveLength(1);
    const [prediction] = body.prompts[0].predictions;
    expect(prediction.confidence).toBeGreaterThan(0.5);
    expect(prediction.masks[0].length).toBeGreaterThan(3);
    for (const [x, y] of prediction.masks[0]) {
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThanOrEqual(451);
      expect(y).toBeLessThanOrEqual(300);
    }
    expect(await creditsOf(server, user)).toBe(4);
    expect((await ledgerOf(user)).map((e) => [e.kind, e.amount])).toEqual([
      ['signup_grant', 5],
      ['charge', -1],
    ]);
  });

  it('reuses the encoder work under a client imageId, namespaced per account, and echoes the id', async () => {
    const first = await post('/api/v1/pvs', pvs(220, 160, { imageId: 'my-cat' }));
    expect(first.status).toBe(200);
    expect((await first.json()).imageId).toBe('my-cat');
    const second = await post('/api/v1/pvs', pvs(300, 120, { imageId: 'my-cat' }));
    expect((await second.json()).imageId).toBe('my-cat');
    expect(await creditsOf(server, user)).toBe(3);
  });

  it('takes the image with or without a data: prefix; multimaskOutput defaults to several candidates', async () => {
    const plain = await post('/api/v1/pvs', { ...pvs(200, 150), image: CAT, multimaskOutput: undefined });
    expect(plain.status).toBe(200);
    const body = await plain.json();
    expect(body.prompts[0].predictions.length).toBeGreaterThan(1);
    expect(await creditsOf(server, user)).toBe(4);
  });

  it('mirrorAverage (an extension of the spec, off by default): the mirrored photo with the mirrored click gets the mirror image of the answer; one credit per call', async () => {
    const photo = PNG.sync.read(Buffer.from(CAT, 'base64'));
    const flipped = new PNG({ width: photo.width, height: photo.height });
    const mirroredPixels = mirrorImage({ width: photo.width, height: photo.height, data: new Uint8Array(photo.data) });
    flipped.data = Buffer.from(mirroredPixels.data);
    const flippedImage = `data:image/png;base64,${PNG.sync.write(flipped).toString('base64')}`;
    const click = { x: 220, y: 160, positive: true };
    const flippedClick = mirrorPoint(click, modelFrame(photo.width, photo.height));
    const answer = async (body: Record<string, unknown>) => {
      const response = await post('/api/v1/pvs', body);
      expect(response.status).toBe(200);
      const [best] = (await response.json()).prompts[0].predictions as { masks: [number, number][][]; confidence: number }[];
      return { confidence: best.confidence, area: best.masks.reduce((sum, ring) => sum + Math.abs(signedArea2(ring)) / 2, 0), left: Math.min(...best.masks.flat().map(([x]) => x)), right: Math.max(...best.masks.flat().map(([x]) => x)) };
    };
    const averaged = await answer(pvs(click.x, click.y, { mirrorAverage: true }));
    const averagedFlipped = await answer({ ...pvs(flippedClick.x, click.y, { mirrorAverage: true }), image: flippedImage });
    // Both answers average the same two decodes, in the other order: the same score, the mask mirrored.
    expect(averagedFlipped.confidence).toBeCloseTo(averaged.confidence, 6);
    expect(Math.abs(averagedFlipped.area - averaged.area) / averaged.area).toBeLessThan(0.01);
    expect(Math.abs(photo.width - averagedFlipped.right - averaged.left)).toBeLessThanOrEqual(1.5);
    // Left out: one look. The two are different decodes (SAM is not mirror-symmetric), so the averaging is what did it.
    const quick = await answer(pvs(click.x, click.y));
    expect(Math.abs(quick.confidence - averaged.confidence)).toBeGreaterThan(1e-6);
    const quickFlipped = await answer({ ...pvs(flippedClick.x, click.y, { mirrorAverage: false }), image: flippedImage });
    expect(Math.abs(quick.confidence - quickFlipped.confidence)).toBeGreaterThan(1e-6);
    expect(await creditsOf(server, user)).toBe(1);
  });

  it('answers a byte-identical keyed retry from the digest of its bytes; the same request written differently is replayed by its fingerprint', async () => {
    const key = 'digest-fast-path';
    const bytes = JSON.stringify(pvs());
    const send = (body: string, path = '/api/v1/pvs') =>
      server.fetch(path, { method: 'POST', headers: { ...user.bearer, 'content-type': 'application/json', 'idempotency-key': key }, body });
    const first = await send(bytes);
    expect(first.status).toBe(200);
    const firstBody = await first.text();
    const stored = await server.services.db.kysely
      .selectFrom('attempts')
      .select(['id', 'body_digest'])
      .where('request_id', '=', first.headers.get('x-service-request-id')!)
      .executeTakeFirstOrThrow();
    expect(stored.body_digest).toBe(bodyDigest('POST', '/api/v1/pvs', Buffer.from(bytes)));

    const accountId = (await server.services.db.kysely.selectFrom('accounts').select('id').where('email', '=', user.email).executeTakeFirstOrThrow()).id;
    expect(await server.services.credits.decideByDigest(accountId, key, stored.body_digest!)).toMatchObject({ kind: 'replay', stored: { status: 200, json: firstBody } });
    expect(await server.services.credits.decideByDigest(accountId, key, bodyDigest('POST', '/api/v1/segment', Buffer.from(bytes)))).toBeUndefined();

    // Byte-identical: the fast path. Same JSON value with other spacing and key order, or with its
    // slashes escaped (so that the image is read as a string, not left as bytes): the fingerprint.
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(bytes) as object).reverse()), null, 2);
    const escaped = bytes.replaceAll('/', '\\/');
    expect(escaped).not.toBe(bytes);
    expect(JSON.parse(escaped)).toEqual(JSON.parse(bytes));
    for (const body of [bytes, reordered, escaped]) {
      const replay = await send(body);
      expect(replay.status).toBe(200);
      expect(replay.headers.get('x-idempotent-replayed')).toBe('true');
      expect(await replay.text()).toBe(firstBody);
    }
    // The same bytes on the other endpoint are another request, never this replay: validated there (400).
    await expectProblem(await send(bytes, '/api/v1/segment'), 400, 'validation-failed');
    expect(await creditsOf(server, user)).toBe(4);
  });

  it('replays a keyed request without a second charge; same key with another body is 409', async () => {
    const key = { 'idempotency-key': 'order-42:try.1_a' };
    const first = await post('/api/v1/pvs', pvs(), key);
    expect(first.status).toBe(200);
    const firstBody = await first.text();
    const replay = await post('/api/v1/pvs', pvs(), key);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('x-idempotent-replayed')).toBe('true');
    expect(replay.headers.get('x-service-original-request-id')).toBe(first.headers.get('x-service-request-id'));
    expect(replay.headers.get('x-service-request-id')).not.toBe(first.headers.get('x-service-request-id'));
    expect(await replay.text()).toBe(firstBody);
    expect(await creditsOf(server, user)).toBe(4);

    await expectProblem(await post('/api/v1/pvs', pvs(100, 100), key), 409, 'idempotency-key-reused');
    await expectProblem(await post('/api/v1/segment', { image: CAT, prompts: ['cat'] }, key), 409, 'idempotency-key-reused');

    // Keys are scoped per account: another user's identical key is their own new attempt.
    const other = await signupUser(server);
    const theirs = await post('/api/v1/pvs', pvs(), key, other);
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get('x-idempotent-replayed')).toBeNull();
    expect(await creditsOf(server, other)).toBe(4);
    expect(await creditsOf(server, user)).toBe(4);

    // After 24 hours the key is forgotten: a new paid attempt. Housekeeping drops the stored body.
    const firstAttempt = await server.services.db.kysely
      .selectFrom('attempts')
      .select('id')
      .where('request_id', '=', first.headers.get('x-service-request-id')!)
      .executeTakeFirstOrThrow();
    server.clock.advance(LIMITS.keyedResultReuseMs + 1);
    await server.services.recovery.purgeExpired();
    const purged = await server.services.db.kysely
      .selectFrom('attempts')
      .select('response_body')
      .where('id', '=', firstAttempt.id)
      .executeTakeFirstOrThrow();
    expect(purged.response_body).toBeNull();
    const later = await post('/api/v1/pvs', pvs(), key);
    expect(later.status).toBe(200);
    expect(later.headers.get('x-idempotent-replayed')).toBeNull();
    expect(await creditsOf(server, user)).toBe(3);
  });

  it('tells a retry of a call still running to come back after about the engine time, not after a constant second', async () => {
    // Every engine call takes at least 3 s; the estimate (smoothed over recent calls, faster ones
    // before this test among them) learns it from the calls it sees.
    server.services.faults.rates = { engine_delay_ms: 3000 };
    for (const x of [221, 222]) expect((await post('/api/v1/pvs', pvs(x, 165), { 'x-force-refresh': 'true' })).status).toBe(200);
    const key = { 'idempotency-key': 'slow-original' };
    const original = post('/api/v1/pvs', pvs(225, 165), key);
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const retry = await post('/api/v1/pvs', pvs(225, 165), key);
      const problem = await expectProblem(retry, 409, 'request-in-progress');
      expect(Number(retry.headers.get('retry-after'))).toBeGreaterThanOrEqual(2);
      expect(problem.retryAfterSeconds).toBe(Number(retry.headers.get('retry-after')));
    } finally {
      expect((await original).status).toBe(200);
    }
    expect(await creditsOf(server, user)).toBe(2);
  });

  it('charges exactly once for concurrent requests with one Idempotency-Key; all end with the same answer', async () => {
    const key = { 'idempotency-key': 'concurrent-1' };
    const responses = await Promise.all(Array.from({ length: 12 }, () => post('/api/v1/pvs', pvs(230, 170), key)));
    const statuses = responses.map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    for (const r of responses.filter((r) => r.status === 409)) {
      const problem = await expectProblem(r, 409, 'request-in-progress');
      expect(problem.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    const bodies = new Set(await Promise.all(responses.filter((r) => r.status === 200).map((r) => r.text())));
    // Retry the 409s as a client would (after Retry-After; the test needs no wait: the original is done).
    const retries = await Promise.all(statuses.filter((s) => s === 409).map(() => post('/api/v1/pvs', pvs(230, 170), key)));
    for (const r of retries) {
      expect(r.status).toBe(200);
      bodies.add(await r.text());
    }
    expect(bodies.size).toBe(1);
    expect(await creditsOf(server, user)).toBe(4);
    expect((await ledgerOf(user)).filter((e) => e.kind === 'charge')).toHaveLength(1);
  });

  it('reuses an identical unkeyed request for 5 minutes; X-Force-Refresh starts a new paid attempt; a key beats it', async () => {
    const first = await post('/api/v1/pvs', pvs(210, 140));
    expect(first.status).toBe(200);
    const reused = await post('/api/v1/pvs', pvs(210, 140));
    expect(reused.headers.get('x-idempotent-replayed')).toBe('true');
    expect(await creditsOf(server, user)).toBe(4);

    const forced = await post('/api/v1/pvs', pvs(210, 140), { 'x-force-refresh': 'true' });
    expect(forced.status).toBe(200);
    expect(forced.headers.get('x-idempotent-replayed')).toBeNull();
    expect(await creditsOf(server, user)).toBe(3);

    server.clock.advance(LIMITS.unkeyedResultReuseMs + 1);
    const expired = await post('/api/v1/pvs', pvs(210, 140));
    expect(expired.headers.get('x-idempotent-replayed')).toBeNull();
    expect(await creditsOf(server, user)).toBe(2);

    const keyed = await post('/api/v1/pvs', pvs(210, 140), { 'idempotency-key': 'k-force' });
    expect(keyed.status).toBe(200);
    const keyedAndForced = await post('/api/v1/pvs', pvs(210, 140), { 'idempotency-key': 'k-force', 'x-force-refresh': 'true' });
    expect(keyedAndForced.headers.get('x-idempotent-replayed')).toBe('true');
    expect(await creditsOf(server, user)).toBe(1);
  });

  it('rejects bad headers and malformed bodies with 400, charging nothing and storing nothing under the key', async () => {
    const key = { 'idempotency-key': 'bad-then-good' };
    await expectProblem(await post('/api/v1/pvs', pvs(), { 'idempotency-key': 'x'.repeat(129) }), 400, 'invalid-header');
    await expectProblem(await post('/api/v1/pvs', pvs(), { 'idempotency-key': 'has space' }), 400, 'invalid-header');
    await expectProblem(await post('/api/v1/pvs', pvs(), { 'x-force-refresh': 'maybe' }), 400, 'invalid-header');
    const cases: [unknown, string][] = [
      [{ ...pvs(), image: 'aGVsbG8gd29ybGQ=' }, 'invalid-image'],
      [{ ...pvs(), image: 'not base64 at all!' }, 'invalid-image'],
      [{ ...pvs(), image: 'data:image/png;base64,' }, 'invalid-image'],
      [{ ...pvs(), points: [{ x: -1, y: 5 }] }, 'validation-failed'],
      [{ ...pvs(), points: [{ x: 'a', y: 5 }] }, 'validation-failed'],
      [{ ...pvs(), points: [{ x: 5, y: 5, positive: false }] }, 'validation-failed'],
      [{ ...pvs(), points: undefined }, 'validation-failed'],
      [{ ...pvs(), points: Array.from({ length: 1025 }, () => ({ x: 1, y: 1 })) }, 'validation-failed'],
      [{ ...pvs(), box: { x: 10, y: 10, width: 0, height: 5 } }, 'validation-failed'],
      [{ image: CAT }, 'validation-failed'],
    ];
    for (const [body, slug] of cases) {
      await expectProblem(await post('/api/v1/pvs', body, key), 400, slug);
    }
    // JSON has no NaN/Infinity literal; an overflowing number parses to Infinity and is refused.
    const infinite = await server.fetch('/api/v1/pvs', {
      method: 'POST',
      headers: { ...user.bearer, ...key, 'content-type': 'application/json' },
      body: `{"image":"${CAT}","points":[{"x":1e999,"y":3}]}`,
    });
    await expectProblem(infinite, 400, 'validation-failed');
    const segmentCases: unknown[] = [
      { image: CAT, prompts: [] },
      { image: CAT, prompts: Array.from({ length: 17 }, (_, i) => `p${i}`) },
      { image: CAT, prompts: [''] },
      { image: CAT, prompts: ['x'.repeat(501)] },
      { image: CAT },
    ];
    for (const body of segmentCases) {
      await expectProblem(await post('/api/v1/segment', body, { 'idempotency-key': 'seg-bad' }), 400, 'validation-failed');
    }
    expect(await creditsOf(server, user)).toBe(5);
    // Nothing was stored under the key: the first valid request with it is a fresh, paid attempt.
    const good = await post('/api/v1/pvs', pvs(), key);
    expect(good.status).toBe(200);
    expect(good.headers.get('x-idempotent-replayed')).toBeNull();
    expect(await creditsOf(server, user)).toBe(4);
  });

  it('answers 400 for a file that looks like a PNG but cannot be decoded, before any charge or engine job', async () => {
    const png = readFileSync(join(SAMPLES_DIR, 'chelsea.png'));
    const truncated = png.subarray(0, Math.floor(png.length / 2)).toString('base64');
    const jobs = engine.jobs;
    const response = await post('/api/v1/pvs', { ...pvs(), image: truncated }, { 'idempotency-key': 'truncated' });
    const problem = await expectProblem(response, 400, 'invalid-image');
    expect(problem.detail).toMatch(/does not decode/);
    expect(problem.refunded).toBeUndefined();
    expect(await creditsOf(server, user)).toBe(5);
    // Not stored under the key: a valid request with it is a new attempt.
    expect((await post('/api/v1/pvs', pvs(), { 'idempotency-key': 'truncated' })).status).toBe(200);
    // Sent again, the file is checked again, and again never reaches the engine.
    await expectProblem(await post('/api/v1/pvs', { ...pvs(), image: truncated }), 400, 'invalid-image');
    expect(engine.jobs).toBe(jobs + 1);
    expect(await creditsOf(server, user)).toBe(4);
  });

  it('decodes and checks a photo the first time only: sent again, its job names it by digest and the answer is the same', async () => {
    // A photo this server has not seen: the sample with a comment chunk of its own.
    const png = readFileSync(join(SAMPLES_DIR, 'chelsea.png'));
    const photo = padPng(png, png.length + 64 + Math.floor(Math.random() * 1000)).toString('base64');
    const body = { ...pvs(), image: photo };
    const [jobs, withImage] = [engine.jobs, engine.jobsWithImage];
    const first = await post('/api/v1/pvs', body, { 'x-force-refresh': 'true' });
    expect(first.status).toBe(200);
    expect([engine.jobs - jobs, engine.jobsWithImage - withImage]).toEqual([1, 1]);
    // With and without the slow JSON path (escaped slashes make the image a string): one digest.
    for (const text of [JSON.stringify(body), JSON.stringify(body).replaceAll('/', '\\/')]) {
      const again = await server.fetch('/api/v1/pvs', {
        method: 'POST',
        headers: { ...user.bearer, 'content-type': 'application/json', 'x-force-refresh': 'true' },
        body: text,
      });
      expect(again.status).toBe(200);
      expect(await again.json()).toEqual(await first.clone().json());
    }
    expect([engine.jobs - jobs, engine.jobsWithImage - withImage]).toEqual([3, 1]);
    expect(await creditsOf(server, user)).toBe(2);
  });

  it('accepts an image of exactly 2,097,152 characters and refuses one more with 413', async () => {
    const png = padPng(readFileSync(join(SAMPLES_DIR, 'chelsea.png')), (LIMITS.imageMaxChars / 4) * 3);
    const exact = png.toString('base64');
    expect(exact.length).toBe(LIMITS.imageMaxChars);
    const accepted = await post('/api/v1/pvs', { ...pvs(), image: exact });
    expect(accepted.status).toBe(200);
    expect(await creditsOf(server, user)).toBe(4);
    const refused = await post('/api/v1/pvs', { ...pvs(), image: `${exact}A` }, { 'idempotency-key': 'too-big' });
    await expectProblem(refused, 413, 'image-too-large');
    const payload = await post('/api/v1/pvs', { ...pvs(), image: 'A'.repeat(2_400_000) });
    await expectProblem(payload, 413, 'payload-too-large');
    expect(await creditsOf(server, user)).toBe(4);
  });

  it('answers 402 when credits run out, stores nothing under the key, and works again after a purchase', async () => {
    for (let i = 0; i < 5; i += 1) {
      expect((await post('/api/v1/pvs', pvs(200 + i * 5, 150))).status).toBe(200);
    }
    expect(await creditsOf(server, user)).toBe(0);
    const key = { 'idempotency-key': 'after-topup' };
    const jobsBefore = engine.jobs;
    await expectProblem(await post('/api/v1/pvs', pvs(180, 150), key), 402, 'insufficient-credits');
    // Inference may start before the charge commits, but never for an account without credit.
    expect(engine.jobs).toBe(jobsBefore);
    const bought = await server.fetch('/api/v1/credit-purchases', { method: 'POST', headers: user.bearer, json: { packageId: 'lite' } });
    expect(bought.status).toBe(201);
    const retried = await post('/api/v1/pvs', pvs(180, 150), key);
    expect(retried.status).toBe(200);
    expect(await creditsOf(server, user)).toBe(299);
  });

  it('refunds an engine failure against the original charge (500, X-Service-Refunded)', async () => {
    server.services.faults.rates = { engine: 1 };
    const key = { 'idempotency-key': 'fails-once' };
    const failed = await post('/api/v1/pvs', pvs(), key);
    const problem = await expectProblem(failed, 500, 'engine-failure');
    expect(problem.refunded).toBe(true);
    expect(failed.headers.get('x-service-refunded')).toBe('true');
    expect(await creditsOf(server, user)).toBe(5);
    const entries = await ledgerOf(user);
    const charge = entries.find((e) => e.kind === 'charge')!;
    expect(entries.find((e) => e.kind === 'refund')).toMatchObject({ amount: 1, reference: charge.reference });
    // A failure is not replayed: retrying with the same key is a new (paid) attempt.
    server.services.faults.rates = {};
    const retried = await post('/api/v1/pvs', pvs(), key);
    expect(retried.status).toBe(200);
    expect(await creditsOf(server, user)).toBe(4);
  });

  it('keeps a failed refund on record, answers 409 refund-pending meanwhile, and the retry loop completes it', async () => {
    server.services.faults.rates = { engine: 1, refund: 1 };
    const key = { 'idempotency-key': 'refund-later' };
    const failed = await post('/api/v1/pvs', pvs(), key);
    const problem = await expectProblem(failed, 500, 'engine-failure');
    expect(problem.refunded).toBe(false);
    expect(failed.headers.get('x-service-refunded')).toBeNull();
    expect(await creditsOf(server, user)).toBe(4);
    const pending = await post('/api/v1/pvs', pvs(), key);
    await expectProblem(pending, 409, 'refund-pending');
    expect(Number(pending.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    // The loop keeps failing while the fault is on, and records each try.
    server.clock.advance(120_000);
    expect((await server.services.recovery.sweepOnce()).refundFailures).toBeGreaterThanOrEqual(1);
    server.services.faults.rates = {};
    server.clock.advance(120_000);
    expect((await server.services.recovery.sweepOnce()).refunded).toBeGreaterThanOrEqual(1);
    expect(await server.services.recovery.pendingRefunds()).toBe(0);
    expect(await creditsOf(server, user)).toBe(5);
    const attempt = await server.services.db.kysely
      .selectFrom('attempts')
      .select(['state', 'refund_attempts'])
      .where('idempotency_key', '=', 'refund-later')
      .executeTakeFirstOrThrow();
    expect(attempt.state).toBe('refunded');
    expect(attempt.refund_attempts).toBeGreaterThanOrEqual(3);
    const retried = await post('/api/v1/pvs', pvs(), key);
    expect(retried.status).toBe(200);
  });

  it('keeps an empty result a 200 with the normal structure, refunded, also on replay', async () => {
    server.services.faults.rates = { empty: 1 };
    const key = { 'idempotency-key': 'nothing-there' };
    const empty = await post('/api/v1/pvs', pvs(), key);
    expect(empty.status).toBe(200);
    expect(empty.headers.get('x-service-refunded')).toBe('true');
    expect(await empty.json()).toEqual({ prompts: [{ predictions: [] }], imageId: expect.any(String) });
    expect(await creditsOf(server, user)).toBe(5);
    const replay = await post('/api/v1/pvs', pvs(), key);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('x-service-refunded')).toBe('true');
    expect(replay.headers.get('x-idempotent-replayed')).toBe('true');
    expect(await creditsOf(server, user)).toBe(5);
  });

  it('refunds an invalid result with 500 invalid-result', async () => {
    server.services.faults.rates = { invalid: 1 };
    await expectProblem(await post('/api/v1/pvs', pvs()), 500, 'invalid-result');
    expect(await creditsOf(server, user)).toBe(5);
  });

  it('answers /segment with one prompt_results element per prompt: the cat found, the remote control not; one credit', async () => {
    const response = await post('/api/v1/segment', { image: CAT_DATA_URI, prompts: ['cat', 'remote control'] });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.prompt_results.map((p: { echo: { text: string } }) => p.echo.text)).toEqual(['cat', 'remote control']);
    const [cat, remote] = body.prompt_results;
    expect(cat.predictions.length).toBeGreaterThanOrEqual(1);
    for (const prediction of cat.predictions) {
      expect(prediction.label).toBe('cat');
      expect(prediction.confidence).toBeGreaterThan(0);
      expect(prediction.confidence).toBeLessThanOrEqual(1);
      expect(prediction.masks[0].length).toBeGreaterThanOrEqual(3);
    }
    expect(remote.predictions).toEqual([]);
    expect(response.headers.get('x-service-refunded')).toBeNull();
    expect(await creditsOf(server, user)).toBe(4);
  });

  it('answers /segment for concepts absent from the photo with empty predictions, refunded', async () => {
    const before = await creditsOf(server, user);
    const response = await post('/api/v1/segment', { image: CAT_DATA_URI, prompts: ['giraffe', 'zebra-striped spaceship'] });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-service-refunded')).toBe('true');
    const body = await response.json();
    expect(body).toEqual({ prompt_results: [{ echo: { text: 'giraffe' }, predictions: [] }, { echo: { text: 'zebra-striped spaceship' }, predictions: [] }] });
    expect(await creditsOf(server, user)).toBe(before);
  });

  it('a twin of a call still preparing here is told 409 request-in-progress before it prepares anything; another body under the key is judged as usual', async () => {
    const accountId = (await server.services.db.kysely.selectFrom('accounts').select('id').where('email', '=', user.email).executeTakeFirstOrThrow()).id;
    const billing = creditCalls(server, accountId, 'inst_twins');
    let releaseFirst!: () => void;
    const firstMayGo = new Promise<void>((resolve) => (releaseFirst = resolve));
    const prepared: string[] = [];
    const call = (name: string, body: unknown, prepare: () => Promise<void> = async () => undefined) => ({
      accountId,
      endpoint: 'pvs',
      method: 'POST',
      path: '/api/v1/pvs',
      requestId: `req_${name}`,
      body,
      idempotencyKey: 'twins',
      forceRefresh: false,
      prepare: async () => {
        prepared.push(name);
        await prepare();
        return { run: async () => ({ prompts: [] }), cancel: () => undefined, startsBeforeCharge: true };
      },
      isEmpty: () => false,
      isValid: () => true,
    });
    const first = billing.run(call('first', { same: true }, () => firstMayGo));
    await new Promise((resolve) => setTimeout(resolve, 50)); // first is now waiting inside prepare
    await expect(billing.run(call('twin', { same: true }))).rejects.toMatchObject({ slug: 'request-in-progress', extra: { retryAfterSeconds: 1 } });
    // Another body under the same key is not decided here: the first may yet fail before it claims
    // the key. It goes on, and the database decides: it claims the key first, so the first loses.
    const other = await billing.run(call('other', { same: false }));
    expect(other.kind).toBe('answered');
    expect(prepared).toEqual(['first', 'other']);
    releaseFirst();
    await expect(first).rejects.toMatchObject({ slug: 'idempotency-key-reused' });
    // Settled, nothing is in flight: the other body again is a replay.
    expect((await billing.run(call('other-again', { same: false }))).kind).toBe('replayed');
    expect(await creditsOf(server, user)).toBe(4);
  });

  it('takes the balance read with the API key as a hint only: a stale one may start the engine, never skip the charge', async () => {
    const accountId = (await server.services.db.kysely.selectFrom('accounts').select('id').where('email', '=', user.email).executeTakeFirstOrThrow()).id;
    const billing = creditCalls(server, accountId, 'inst_hint');
    let ran = 0;
    const call = (name: string, balanceHint: number | undefined) => ({
      accountId,
      endpoint: 'pvs',
      method: 'POST',
      path: '/api/v1/pvs',
      requestId: `req_${name}`,
      body: { name },
      forceRefresh: true,
      balanceHint,
      prepare: async () => ({ run: async () => ((ran += 1), { prompts: [] }), cancel: () => undefined, startsBeforeCharge: true }),
      isEmpty: () => false,
      isValid: () => true,
    });
    for (let i = 0; i < 5; i += 1) expect((await billing.run(call(`spend-${i}`, undefined))).kind).toBe('answered');
    expect(await creditsOf(server, user)).toBe(0);
    // A hint of 0 refuses before anything starts; a stale hint of 3 lets the work start, and the charge still says no.
    await expect(billing.run(call('empty', 0))).rejects.toMatchObject({ slug: 'insufficient-credits' });
    expect(ran).toBe(5);
    await expect(billing.run(call('stale', 3))).rejects.toMatchObject({ slug: 'insufficient-credits' });
    expect(ran).toBe(6);
    // Without a hint the balance is read: refused before anything starts.
    await expect(billing.run(call('unhinted', undefined))).rejects.toMatchObject({ slug: 'insufficient-credits' });
    expect(ran).toBe(6);
    expect(await creditsOf(server, user)).toBe(0);
  });

  describe('recovery points (attempts left behind by a dead process)', () => {
    /** Leaves an attempt at a recovery point as a process that died there would. */
    const seed = async (phase: 'charged' | 'refund_pending', key: string, body = pvs()) => {
      const accountId = (
        await server.services.db.kysely.selectFrom('accounts').select('id').where('email', '=', user.email).executeTakeFirstOrThrow()
      ).id;
      const dead = new Credits(server.services.db, server.clock, new FaultInjector(), 'inst_dead_process', DEFAULT_BILLING_OPTIONS);
      const normalized = fingerprintBody(PvsRequest.parse(body), readUpload(body.image));
      const call = {
        accountId,
        endpoint: 'pvs',
        method: 'POST',
        path: '/api/v1/pvs',
        requestId: 'req_dead',
        body: normalized,
        idempotencyKey: key,
        forceRefresh: false,
        prepare: async () => ({ run: async () => ({}), cancel: () => undefined }),
        isEmpty: () => false,
        isValid: () => true,
      };
      const claim = await dead.claimAndCharge(accountId, call, { scope: 'explicit', key }, requestFingerprint('POST', '/api/v1/pvs', normalized));
      if (claim.kind !== 'claimed') throw new Error('seed claim failed');
      if (phase === 'refund_pending') await dead.settle(claim.ticket, 'refund_pending', 500, JSON.stringify({ seeded: true }), false);
      return claim.ticket;
    };
    const stateOf = async (id: string) =>
      (await server.services.db.kysely.selectFrom('attempts').select('state').where('id', '=', id).executeTakeFirstOrThrow()).state;

    it('charged: recovery refunds the orphaned charge; the retry with the same key is charged once', async () => {
      const id = await seed('charged', 'rp-charged');
      expect(await creditsOf(server, user)).toBe(4);
      await expectProblem(await post('/api/v1/pvs', pvs(), { 'idempotency-key': 'rp-charged' }), 409, 'request-in-progress');
      await server.services.recovery.sweepOnce();
      expect(await stateOf(id)).toBe('refunded');
      expect(await creditsOf(server, user)).toBe(5);
      const retried = await post('/api/v1/pvs', pvs(), { 'idempotency-key': 'rp-charged' });
      expect(retried.status).toBe(200);
      expect(await creditsOf(server, user)).toBe(4);
      const entries = await ledgerOf(user);
      expect(entries.filter((e) => e.reference === id).map((e) => e.kind).sort()).toEqual(['charge', 'refund']);
    });

    it('refund_pending: 409 with Retry-After until the loop refunds it, then a new attempt', async () => {
      const id = await seed('refund_pending', 'rp-refund');
      const pending = await post('/api/v1/pvs', pvs(), { 'idempotency-key': 'rp-refund' });
      await expectProblem(pending, 409, 'refund-pending');
      expect(pending.headers.get('retry-after')).toBe('1');
      await server.services.recovery.sweepOnce();
      expect(await stateOf(id)).toBe('refunded');
      expect(await creditsOf(server, user)).toBe(5);
      expect((await post('/api/v1/pvs', pvs(), { 'idempotency-key': 'rp-refund' })).status).toBe(200);
    });

    it('a refund is applied once however many sweeps race for it', async () => {
      const id = await seed('refund_pending', 'rp-race');
      await Promise.all([
        server.services.recovery.retryDueRefunds(),
        server.services.recovery.retryDueRefunds(),
        server.services.credits.refund(id),
      ]);
      expect((await ledgerOf(user)).filter((e) => e.kind === 'refund' && e.reference === id)).toHaveLength(1);
      expect(await creditsOf(server, user)).toBe(5);
    });
  });
});

describe.each(DATABASES)('limits without the engine (%s)', (dbKind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ db: dbKind, backend: NO_INFERENCE, rateLimitPerSecond: 3 });
  });
  afterEach(async () => server.checkLedger());
  afterAll(async () => server?.cleanup());

  it('allows 3 requests per second per account, then 429 with Retry-After; other accounts are unaffected', async () => {
    const alice = await signupUser(server);
    const bob = await signupUser(server);
    server.clock.freeze();
    try {
      const bad = { image: 'x' };
      for (let i = 0; i < 3; i += 1) {
        expect((await server.fetch('/api/v1/pvs', { method: 'POST', headers: alice.bearer, json: bad })).status).toBe(400);
      }
      const limited = await server.fetch('/api/v1/pvs', { method: 'POST', headers: alice.bearer, json: bad });
      await expectProblem(limited, 429, 'rate-limited');
      expect(limited.headers.get('retry-after')).toBe('1');
      expect((await server.fetch('/api/v1/segment', { method: 'POST', headers: bob.bearer, json: bad })).status).toBe(400);
      server.clock.advance(1000);
      expect((await server.fetch('/api/v1/pvs', { method: 'POST', headers: alice.bearer, json: bad })).status).toBe(400);
    } finally {
      server.clock.unfreeze();
    }
  });

  it('refuses a decompression bomb (a tiny PNG claiming 81 megapixels) with 400 before anything is charged', async () => {
    const { crc32, deflateSync } = await import('node:zlib');
    const chunk = (type: string, data: Buffer) => {
      const length = Buffer.alloc(4);
      length.writeUInt32BE(data.length);
      const crc = Buffer.alloc(4);
      crc.writeUInt32BE(crc32(Buffer.concat([Buffer.from(type), data])) >>> 0);
      return Buffer.concat([length, Buffer.from(type), data, crc]);
    };
    const ihdr = Buffer.alloc(13);
    ihdr.writeUInt32BE(9000, 0);
    ihdr.writeUInt32BE(9000, 4);
    ihdr.set([8, 2, 0, 0, 0], 8);
    const bomb = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(Buffer.alloc(27_001))), chunk('IEND', Buffer.alloc(0))]);
    const user = await signupUser(server);
    const response = await server.fetch('/api/v1/pvs', { method: 'POST', headers: user.bearer, json: { image: bomb.toString('base64'), points: [{ x: 1, y: 1 }] } });
    const problem = await expectProblem(response, 400, 'invalid-image');
    expect(String(problem.detail)).toMatch(/megapixels/);
    expect(await creditsOf(server, user)).toBe(5);
  });

  it('answers 503 with Retry-After when no inference capacity is left, charging nothing', async () => {
    const user = await signupUser(server);
    const busy = await server.fetch('/api/v1/pvs', { method: 'POST', headers: user.bearer, json: pvs() });
    const problem = await expectProblem(busy, 503, 'service-busy');
    expect(problem.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(Number(busy.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await creditsOf(server, user)).toBe(5);
    // Nothing stored: the same request again is judged afresh (still busy).
    await expectProblem(await server.fetch('/api/v1/pvs', { method: 'POST', headers: user.bearer, json: pvs() }), 503, 'service-busy');
  });
});

describe('worker pool: saturation and time limits', () => {
  let pool: WorkerPool;
  let server: TestServer;
  beforeAll(async () => {
    pool = new WorkerPool({ workers: 1, maxQueue: 0, threads: 1, jobTimeoutMs: 120_000 });
    server = await startTestServer({ db: 'sqlite', backend: pool });
    await pool.ready();
  });
  afterEach(async () => server.checkLedger());
  afterAll(async () => {
    await server?.cleanup();
    await pool?.close();
  });

  it('a full pool (1 worker, no queue) refuses the second concurrent call with 503 instead of queueing', async () => {
    server.services.faults.rates = { engine_delay_ms: 5_000 };
    const user = await signupUser(server);
    const first = server.fetch('/api/v1/pvs', { method: 'POST', headers: user.bearer, json: pvs() });
    // Wait until the first call holds the only slot (charged, engine running), then try a second.
    for (let i = 0; i < 400; i += 1) {
      const row = await server.services.db.kysely.selectFrom('attempts').select('state').where('state', '=', 'charged').executeTakeFirst();
      if (row) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    const second = await server.fetch('/api/v1/pvs', { method: 'POST', headers: user.bearer, json: pvs(100, 100) });
    await expectProblem(second, 503, 'service-busy');
    expect((await first).status).toBe(200);
    expect(await creditsOf(server, user)).toBe(4);
    server.services.faults.rates = {};
  });

  it('a job over the time limit is answered 500 and refunded; the worker survives and serves the next call', async () => {
    const user = await signupUser(server);
    pool.setJobTimeout(1);
    const late = await server.fetch('/api/v1/pvs', { method: 'POST', headers: user.bearer, json: pvs(150, 150) });
    const problem = await expectProblem(late, 500, 'engine-failure');
    expect(problem.refunded).toBe(true);
    expect(await creditsOf(server, user)).toBe(5);
    pool.setJobTimeout(120_000);
    let next: Response | undefined;
    // The worker first finishes the late job; meanwhile the one slot may still be taken (503).
    for (let i = 0; i < 600; i += 1) {
      next = await server.fetch('/api/v1/pvs', { method: 'POST', headers: user.bearer, json: pvs(150, 150), });
      if (next.status !== 503) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(next!.status).toBe(200);
    expect(await creditsOf(server, user)).toBe(4);
  });
});

