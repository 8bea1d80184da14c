/**
 * No cross-account cache signal, over real HTTP with the real engine: what account B observes of
 * a photo (its masks, its Server-Timing) is the same whether or not account A sent that photo
 * before. The decoded pixels and the embedding are cached per account, so B's first call on A's
 * photo pays its own decode and encoder run, while A's own repeat is a cache hit.
 */
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeSharedEngine, DATABASES, SAMPLES_DIR, sharedEngine, signupUser, startTestServer, type TestServer, type TestUser } from '../../test/support/server/harness';
import { join } from 'node:path';

/** Server-Timing `name;dur=ms, …` as a record. */
function serverTiming(response: Response): Record<string, number> {
  const header = response.headers.get('server-timing') ?? '';
  return Object.fromEntries(header.split(',').map((part) => {
    const [name, dur] = part.trim().split(';dur=');
    return [name, Number(dur)];
  }));
}

afterAll(async () => closeSharedEngine());

describe.each(DATABASES)('no cross-account cache signal (%s)', (dbKind) => {
  let server: TestServer;
  let alice: TestUser;
  let bob: TestUser;
  const pvs = async (who: TestUser, image: string, x: number) => {
    const response = await server.fetch('/api/v1/pvs', {
      method: 'POST',
      headers: { ...who.bearer, 'x-force-refresh': 'true' },
      json: { image, points: [{ x, y: 150, positive: true }], multimaskOutput: false, mirrorAverage: false },
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { prompts: unknown; imageId: string };
    return { timing: serverTiming(response), masks: JSON.stringify(body.prompts), imageId: body.imageId };
  };

  beforeAll(async () => {
    server = await startTestServer({ db: dbKind, backend: await sharedEngine() });
    alice = await signupUser(server);
    bob = await signupUser(server);
  });
  afterEach(async () => server.checkLedger());
  afterAll(async () => server?.cleanup());

  it("B's first call on a photo A sent (same point) is a cold call for B: its own decode and encoder run", async () => {
    // A photo of this test only (per database), so no earlier call of anyone has seen it.
    const photo = (await sharp(join(SAMPLES_DIR, 'chelsea.png')).modulate({ hue: dbKind === 'sqlite' ? 40 : 80 }).png().toBuffer()).toString('base64');
    const aliceFirst = await pvs(alice, photo, 220);
    await pvs(alice, photo, 230); // A's own repeat: A's cache hit

    const bobSamePoint = await pvs(bob, photo, 220);
    // B's own cache hits, decoder only; the quickest of three (a shared machine can slow any call
    // down, but no load makes an encoder run quick).
    // The same point: the time of tracing a mask's outline depends on the mask, not on any cache.
    const bobHits = [await pvs(bob, photo, 220), await pvs(bob, photo, 220), await pvs(bob, photo, 220)];
    const quickestHit = (part: string) => Math.min(...bobHits.map((hit) => hit.timing[part]));
    // B's first call is not a hit on A's embedding (an encoder run is many decoder runs) nor on
    // A's decoded pixels.
    expect(bobSamePoint.timing.engine).toBeGreaterThan(quickestHit('engine') * 3);
    expect(bobSamePoint.timing.decode).toBeGreaterThan(0.5);
    expect(bobSamePoint.timing.decode).toBeGreaterThan(quickestHit('decode') * 3);
    // The answer is the same: the cache changes what it costs us, never what anyone gets.
    expect(bobSamePoint.masks).toBe(aliceFirst.masks);
    expect(bobSamePoint.imageId).toBe(aliceFirst.imageId);
  });
});
