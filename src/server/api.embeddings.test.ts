/**
 * POST /api/v1/embeddings over real HTTP, a real database and the real engine on real photos
 * (../shared/samples): charged once per photo and account, a free replay after that (whatever
 * Idempotency-Key), another account's request is its own, failures refunded, the encoder's
 * identity checked both ways, bad input refused with nothing charged. The ledger invariant is
 * checked after every test.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EmbeddingResponse, isConsistentEmbedding } from '../contract/embeddings';
import { LIMITS } from '../contract/limits';
import { defaultModelDir } from '../engine/adapters/ortNode';
import { dequantizeEmbedding } from '../engine/embeddingCodec';
import { closeSharedEngine, countingJobs, creditsOf, DATABASES, expectProblem, sharedEngine, signupUser, startTestServer, type TestServer, type TestUser } from '../../test/support/server/harness';
import { sharedPath } from '../../test/support/sharedData';

const COFFEE = readFileSync(sharedPath('samples/coffee.png')).toString('base64');
const ROCKET = readFileSync(sharedPath('samples/rocket.jpg')).toString('base64');

/** The encoder's identity as the studio computes it: its manifest entry, `file@sha256`. */
function manifestIdentityOf(file: string): string {
  const manifest = JSON.parse(readFileSync(join(defaultModelDir(), 'manifest.json'), 'utf8')) as Record<string, { file?: string; sha256?: string }>;
  const entry = Object.values(manifest).find((e) => e?.file === file);
  if (!entry?.sha256) throw new Error(`manifest.json lists no ${file}`);
  return `${file}@${entry.sha256}`;
}

afterAll(async () => closeSharedEngine());

describe.each(DATABASES)('POST /api/v1/embeddings (%s)', (dbKind) => {
  let server: TestServer;
  let engine: ReturnType<typeof countingJobs>;
  let user: TestUser;
  const embed = (image: string, who: TestUser = user, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}) =>
    server.fetch('/api/v1/embeddings', { method: 'POST', headers: { ...who.bearer, ...headers }, json: { image, ...extra } });
  const attemptsOf = async (who: TestUser) =>
    server.services.db.kysely
      .selectFrom('attempts as t')
      .innerJoin('accounts as a', 'a.id', 't.account_id')
      .select(['t.id', 't.state', 't.request_id'])
      .where('a.email', '=', who.email)
      .where('t.endpoint', '=', 'embeddings')
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

  it('answers the embedding of the photo with the identity of the encoder file that made it, for 1 credit', async () => {
    const response = await embed(COFFEE);
    expect(response.status).toBe(200);
    const body = (await response.json()) as EmbeddingResponse;
    expect(isConsistentEmbedding(body)).toBe(true);
    expect(body.embedding.dims).toEqual([1, 256, 64, 64]);
    expect([body.width, body.height]).toEqual([600, 400]);
    expect(body.imageId).toMatch(/^sha256:[A-Za-z0-9_-]{43}$/);
    // The identity is the file's real SHA-256, and the one the studio's manifest gives the same file.
    const file = readFileSync(join(defaultModelDir(), body.model.file));
    expect(body.model.sha256).toBe(createHash('sha256').update(file).digest('hex'));
    expect(body.model.id).toBe(manifestIdentityOf(body.model.file));
    // Real numbers, not a placeholder: most values non-zero, every channel scaled.
    const values = dequantizeEmbedding({
      dims: body.embedding.dims,
      scales: Float32Array.from(body.embedding.scales),
      data: new Int8Array(Buffer.from(body.embedding.data, 'base64')),
    }).data;
    expect(values.filter((v) => v !== 0).length).toBeGreaterThan(values.length / 2);
    expect(body.embedding.scales.every((s) => s > 0)).toBe(true);
    expect(await creditsOf(server, user)).toBe(LIMITS.signupCredits - 1);
  });

  it('charges once per photo: the same photo again is a free replay, with or without (any) Idempotency-Key or X-Force-Refresh', async () => {
    const first = await embed(ROCKET, user, { 'idempotency-key': 'first' });
    expect(first.status).toBe(200);
    const firstBody = await first.text();
    const jobs = engine.jobs;
    for (const headers of [{}, { 'idempotency-key': 'another-key' }, { 'x-force-refresh': 'true' }] as Record<string, string>[]) {
      const again = await embed(`data:image/jpeg;base64,${ROCKET}`, user, headers);
      expect(again.status).toBe(200);
      expect(again.headers.get('x-idempotent-replayed')).toBe('true');
      expect(again.headers.get('x-service-original-request-id')).toBe(first.headers.get('x-service-request-id'));
      expect(await again.text()).toBe(firstBody);
    }
    expect(engine.jobs).toBe(jobs);
    expect(await creditsOf(server, user)).toBe(LIMITS.signupCredits - 1);
    // A second photo is a second call.
    expect((await embed(COFFEE)).status).toBe(200);
    expect(await creditsOf(server, user)).toBe(LIMITS.signupCredits - 2);
    expect(await attemptsOf(user)).toHaveLength(2);
  });

  it('another account pays for its own embedding of the same photo and never gets the first account\'s record', async () => {
    const alice = user;
    const bob = await signupUser(server);
    const alices = await embed(COFFEE, alice);
    expect(alices.status).toBe(200);
    const bobs = await embed(COFFEE, bob);
    expect(bobs.status).toBe(200);
    expect(bobs.headers.get('x-idempotent-replayed')).toBeNull();
    expect(await creditsOf(server, alice)).toBe(LIMITS.signupCredits - 1);
    expect(await creditsOf(server, bob)).toBe(LIMITS.signupCredits - 1);
    // Bob's replay is his own call's, never Alice's.
    const bobsAgain = await embed(COFFEE, bob);
    expect(bobsAgain.headers.get('x-service-original-request-id')).toBe(bobs.headers.get('x-service-request-id'));
    const [aliceAttempt] = await attemptsOf(alice);
    const [bobAttempt] = await attemptsOf(bob);
    expect(aliceAttempt.id).not.toBe(bobAttempt.id);
    expect(bobAttempt.request_id).toBe(bobs.headers.get('x-service-request-id'));
  });

  it('refunds a failed embedding (X-Service-Refunded) and does not replay the failure: the next request is a new paid call', async () => {
    server.services.faults.rates = { engine: 1 };
    const failed = await embed(COFFEE);
    const problem = await expectProblem(failed, 500, 'engine-failure');
    expect(failed.headers.get('x-service-refunded')).toBe('true');
    expect(problem.refunded).toBe(true);
    expect(await creditsOf(server, user)).toBe(LIMITS.signupCredits);
    server.services.faults.rates = {};
    const retried = await embed(COFFEE);
    expect(retried.status).toBe(200);
    expect(retried.headers.get('x-idempotent-replayed')).toBeNull();
    expect(await creditsOf(server, user)).toBe(LIMITS.signupCredits - 1);
    expect((await attemptsOf(user)).map((a) => a.state).sort()).toEqual(['completed', 'refunded']);
  });

  it('checks the model: a request naming another encoder is refused (409 model-mismatch), nothing charged; naming the served one works', async () => {
    const refused = await embed(COFFEE, user, {}, { model: 'sam-encoder.onnx@0000000000000000000000000000000000000000000000000000000000000000' });
    const problem = await expectProblem(refused, 409, 'model-mismatch');
    expect(String(problem.detail)).toMatch(/this server runs sam-encoder/);
    expect(await creditsOf(server, user)).toBe(LIMITS.signupCredits);
    expect(await attemptsOf(user)).toHaveLength(0);
    const served = String(problem.detail).match(/runs (\S+);/)![1];
    const accepted = await embed(COFFEE, user, {}, { model: served });
    expect(accepted.status).toBe(200);
    expect(((await accepted.json()) as EmbeddingResponse).model.id).toBe(served);
  });

  it('refuses bad input with problem+json and the right status, charging nothing', async () => {
    const jobs = engine.jobs;
    await expectProblem(await embed('this is not base64!'), 400, 'invalid-image');
    await expectProblem(await embed(Buffer.from('plain text, not an image').toString('base64')), 400, 'invalid-image');
    await expectProblem(await server.fetch('/api/v1/embeddings', { method: 'POST', headers: user.bearer, json: { model: 'x' } }), 400, 'validation-failed');
    await expectProblem(await embed('A'.repeat(LIMITS.imageMaxChars + 1)), 413, 'image-too-large');
    await expectProblem(await server.fetch('/api/v1/embeddings', { method: 'POST', json: { image: COFFEE } }), 401, 'unauthenticated');
    await expectProblem(await embed(COFFEE, user, { 'idempotency-key': 'bad key!' }), 400, 'invalid-header');
    expect(engine.jobs).toBe(jobs);
    expect(await creditsOf(server, user)).toBe(LIMITS.signupCredits);
    expect(await attemptsOf(user)).toHaveLength(0);
  });
});

describe.each(DATABASES)('POST /api/v1/embeddings: price and rate limit (%s)', (dbKind) => {
  let server: TestServer;
  const embed = (who: TestUser, image = COFFEE) =>
    server.fetch('/api/v1/embeddings', { method: 'POST', headers: who.bearer, json: { image } });

  beforeAll(async () => {
    server = await startTestServer({
      db: dbKind,
      backend: await sharedEngine(),
      rateLimitPerSecond: 2,
      config: { prices: { 'service:visual': 1, 'service:text': 1, 'service:everything': 1, 'service:embedding': 2, 'service:auto-label': 1 } },
    });
  });
  afterEach(async () => server.checkLedger());
  afterAll(async () => server?.cleanup());

  it('charges the configured price of service:embedding, refunds it whole, and answers 402 below it', async () => {
    const user = await signupUser(server);
    server.services.faults.rates = { engine: 1 };
    expect((await embed(user)).headers.get('x-service-refunded')).toBe('true');
    expect(await creditsOf(server, user)).toBe(LIMITS.signupCredits);
    server.services.faults.rates = {};
    expect((await embed(user)).status).toBe(200);
    expect(await creditsOf(server, user)).toBe(LIMITS.signupCredits - 2);
    server.clock.advance(1_100); // out of the rate window
    expect((await embed(user, ROCKET)).status).toBe(200);
    expect(await creditsOf(server, user)).toBe(LIMITS.signupCredits - 4);
    server.clock.advance(1_100);
    // One credit left, two needed: 402 before any work, nothing taken.
    await expectProblem(await embed(user, readFileSync(sharedPath('samples/astronaut.png')).toString('base64')), 402, 'insufficient-credits');
    expect(await creditsOf(server, user)).toBe(1);
  });

  it('rate limits like the other metered routes: 429 with Retry-After beyond the per-second limit', async () => {
    const user = await signupUser(server);
    const answers = await Promise.all([1, 2, 3].map(() => embed(user, 'not base64!')));
    const limited = answers.find((r) => r.status === 429);
    expect(limited).toBeDefined();
    await expectProblem(limited!, 429, 'rate-limited');
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await creditsOf(server, user)).toBe(LIMITS.signupCredits);
  });
});
