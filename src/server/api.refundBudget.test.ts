/**
 * Refunded work is budgeted per account, over real HTTP with the real engine: calls that end
 * refunded (an empty answer, an image that does not decode) are free for the caller, so after the
 * budget's refunded runs in a window further calls are refused with 429 refund-budget-exhausted,
 * Retry-After and the rule named, before any charge or engine job; another account is not affected,
 * the window's end lifts the refusal, and a second process on the same database refuses too.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeSharedEngine, countingJobs, creditsOf, DATABASES, expectProblem, SAMPLES_DIR, sharedEngine, signupUser, startTestServer, type TestServer, type TestUser } from '../../test/support/server/harness';

afterAll(async () => closeSharedEngine());

const WINDOW_MS = 60_000;

/** A new 16 × 16 flat photo with a 1 × 1 box: the engine finds no mask (an encoder run, refunded). */
async function emptyCall(shade: number): Promise<Record<string, unknown>> {
  const flat = await sharp({ create: { width: 16, height: 16, channels: 3, background: { r: shade, g: shade, b: shade } } }).png().toBuffer();
  return { image: flat.toString('base64'), box: { x: 8, y: 8, width: 1, height: 1 }, multimaskOutput: false, mirrorAverage: false };
}

describe.each(DATABASES)('refunded work budget over HTTP (%s)', (dbKind) => {
  let server: TestServer;
  let backend: ReturnType<typeof countingJobs>;
  let flooder: TestUser;
  let other: TestUser;
  const png = readFileSync(join(SAMPLES_DIR, 'chelsea.png'));
  const pvs = (s: TestServer, user: TestUser, json: Record<string, unknown>) => s.fetch('/api/v1/pvs', { method: 'POST', headers: user.bearer, json });

  beforeAll(async () => {
    backend = countingJobs(await sharedEngine());
    server = await startTestServer({ db: dbKind, backend, config: { refundBudget: { limit: 2, windowMs: WINDOW_MS } } });
    flooder = await signupUser(server);
    other = await signupUser(server);
  });
  afterEach(async () => server.checkLedger());
  afterAll(async () => server?.cleanup());

  it('after 2 refunded runs (empty answers) the third call gets 429 naming the rule, with nothing charged and no engine job', async () => {
    // A file that does not decode is refused before any engine run (issue 39): no refund, not counted.
    const truncated = png.subarray(0, Math.floor(png.length / 2)).toString('base64');
    const refusedImage = await expectProblem(await pvs(server, flooder, { image: truncated, points: [{ x: 220, y: 160 }] }), 400, 'invalid-image');
    expect(refusedImage.refunded).toBeUndefined();
    for (const seed of [40, 41]) {
      const empty = await pvs(server, flooder, await emptyCall(seed));
      expect(empty.status).toBe(200);
      expect(empty.headers.get('x-service-refunded')).toBe('true');
    }
    expect(await creditsOf(server, flooder)).toBe(5);

    const jobs = backend.jobs;
    const refused = await pvs(server, flooder, { image: png.toString('base64'), points: [{ x: 220, y: 160 }], multimaskOutput: false });
    const problem = await expectProblem(refused, 429, 'refund-budget-exhausted');
    expect(problem).toMatchObject({ rule: 'refunded-work-budget', limit: 2, windowSeconds: 60 });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(backend.jobs).toBe(jobs);
    expect(await creditsOf(server, flooder)).toBe(5);

    // Another account is not affected.
    expect((await pvs(server, other, { image: png.toString('base64'), points: [{ x: 220, y: 160 }], multimaskOutput: false })).status).toBe(200);
  });

  it('a second process on the same database refuses the same account (the counts live in the database)', async () => {
    const second = await startTestServer({ db: dbKind, backend, database: server.database, config: { refundBudget: { limit: 2, windowMs: WINDOW_MS } } });
    try {
      await expectProblem(await pvs(second, flooder, await emptyCall(90)), 429, 'refund-budget-exhausted');
    } finally {
      await second.cleanup();
    }
  });

  it('the end of the window lifts the refusal; a successful call does not count', async () => {
    server.clock.advance(WINDOW_MS);
    const served = await pvs(server, flooder, { image: png.toString('base64'), points: [{ x: 230, y: 170 }], multimaskOutput: false });
    expect(served.status).toBe(200);
    expect(served.headers.get('x-service-refunded')).toBeNull();
    expect(await creditsOf(server, flooder)).toBe(4);
    // A new window: two refunded runs again before the next refusal.
    expect((await pvs(server, flooder, await emptyCall(120))).headers.get('x-service-refunded')).toBe('true');
    expect((await pvs(server, flooder, await emptyCall(160))).headers.get('x-service-refunded')).toBe('true');
    await expectProblem(await pvs(server, flooder, await emptyCall(200)), 429, 'refund-budget-exhausted');
  });
});
