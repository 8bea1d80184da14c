/**
 * The inference queue is fair between accounts, over real HTTP with the real engine (one worker):
 * an account that fills the queue with new photos (an encoder run each) does not make another
 * account's click wait behind its whole backlog, and cannot hold more than its share of the queue
 * (429 account-queue-full, nothing charged).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeSharedEngine, creditsOf, DATABASES, expectProblem, padPng, SAMPLES_DIR, sharedEngine, signupUser, startTestServer, type TestServer, type TestUser } from '../../test/support/server/harness';

afterAll(async () => closeSharedEngine());

const PNG = readFileSync(join(SAMPLES_DIR, 'chelsea.png'));
/** The same pixels in a file of another size: another photo to the server (an encoder run). */
const photo = (n: number) => padPng(PNG, PNG.length + 64 + n).toString('base64');

describe.each(DATABASES)('fair inference queue over HTTP (%s)', (dbKind) => {
  let server: TestServer;
  let flooder: TestUser;
  let clicker: TestUser;
  const pvs = (user: TestUser, image: string, x = 220) =>
    server.fetch('/api/v1/pvs', {
      method: 'POST',
      headers: { ...user.bearer, 'x-force-refresh': 'true' },
      json: { image, points: [{ x, y: 160 }], multimaskOutput: false, mirrorAverage: false },
    });

  beforeAll(async () => {
    server = await startTestServer({ db: dbKind, backend: await sharedEngine(), config: { fairness: { perAccountQueued: 4, perAccountRunning: 1, retryAfterSeconds: 2 } } });
    flooder = await signupUser(server);
    clicker = await signupUser(server);
  });
  afterEach(async () => server.checkLedger());
  afterAll(async () => server?.cleanup());

  it('a click of one account is served after the running job, not after another account’s backlog; the flooder’s fifth call gets 429 account-queue-full', async () => {
    const clickerPhoto = photo(0);
    expect((await pvs(clicker, clickerPhoto)).status).toBe(200); // the clicker's photo is encoded once
    const clickerCredits = await creditsOf(server, clicker);
    const flooderCredits = await creditsOf(server, flooder);

    const finished: string[] = [];
    const flood = [1, 2, 3, 4].map((n) =>
      pvs(flooder, photo(n)).then((response) => {
        finished.push(`flood${n}`);
        return response;
      }),
    );
    // Wait until the four are admitted (one running, three waiting), then click.
    for (let i = 0; i < 200 && server.services.backend.backlog!().jobs < 4; i += 1) await new Promise((r) => setTimeout(r, 25));
    expect(server.services.backend.backlog!().jobs).toBe(4);

    const fifth = await pvs(flooder, photo(5));
    const refusal = await expectProblem(fifth, 429, 'account-queue-full');
    expect(Number(fifth.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(String(refusal.detail)).toContain('at most 4');

    const click = pvs(clicker, clickerPhoto, 240).then((response) => {
      finished.push('click');
      return response;
    });
    const responses = await Promise.all([...flood, click]);
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    // First come first served would put the click last; the fair queue runs it right after the job that was running.
    expect(finished.indexOf('click')).toBeLessThanOrEqual(1);
    expect(await creditsOf(server, clicker)).toBe(clickerCredits - 1);
    // Four calls served and charged (an empty answer is refunded); the refused fifth cost nothing.
    const refunded = responses.slice(0, 4).filter((r) => r.headers.get('x-service-refunded') === 'true').length;
    expect(await creditsOf(server, flooder)).toBe(flooderCredits - 4 + refunded);
  });
});
