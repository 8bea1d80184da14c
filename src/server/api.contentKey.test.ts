/**
 * Whose result is it? Over real HTTP with the real engine: a cached embedding is found only by the
 * digest of the whole image, never by a name the client chose, so no account can plant a result
 * for another, an imageId reused for another photo is recomputed, and one photo spelled as a data
 * URI or as bare Base64 is one request.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { imageContentKey, imageFingerprint } from '../engine/hash';
import { closeSharedEngine, creditsOf, DATABASES, SAMPLES_DIR, sharedEngine, signupUser, startTestServer, type TestServer, type TestUser } from '../../test/support/server/harness';

const PHOTO = readFileSync(join(SAMPLES_DIR, 'chelsea.png'));
const CLICK = { x: 220, y: 160, positive: true };

/** The photo's RGBA pixels, decoded as the server decodes them (decodedPhotos.ts). */
async function pixelsOf(png: Buffer): Promise<{ width: number; height: number; data: Uint8Array }> {
  const { data, info } = await sharp(png).rotate().ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.length) };
}

/**
 * Another picture the engine's sampled fingerprint cannot tell from the photo: every pixel it does
 * not sample inside a wide band around the click is painted black. Its 64-bit content key is the
 * one an attacker would claim for the real photo.
 */
async function lookalike(): Promise<{ png: Buffer; claimedKey: string }> {
  const original = await pixelsOf(PHOTO);
  const { width, height } = original;
  const data = new Uint8Array(original.data);
  const pixels = width * height;
  const stride = Math.max(1, Math.floor(pixels / 4096));
  const sampled = new Set<number>();
  for (let i = 0; i < Math.min(4096, pixels); i++) sampled.add((i * stride) % pixels);
  for (let y = 40; y < height - 20; y++) {
    for (let x = 60; x < width - 60; x++) {
      const p = y * width + x;
      if (!sampled.has(p)) data.set([0, 0, 0, 255], p * 4);
    }
  }
  const forged = { width, height, data };
  expect(imageFingerprint(forged)).toBe(imageFingerprint(original));
  const png = await sharp(Buffer.from(data), { raw: { width, height, channels: 4 } }).png().toBuffer();
  return { png, claimedKey: imageContentKey(original) };
}

const masksOf = async (response: Response) => {
  expect(response.status).toBe(200);
  const body = (await response.json()) as { prompts: { predictions: { masks: number[][][] }[] }[] };
  return JSON.stringify(body.prompts[0].predictions.map((p) => p.masks));
};

afterAll(async () => closeSharedEngine());

describe.each(DATABASES)('content keys (%s)', (dbKind) => {
  let server: TestServer;
  let alice: TestUser;
  let bob: TestUser;
  const pvs = (who: TestUser, image: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    server.fetch('/api/v1/pvs', {
      method: 'POST',
      headers: { ...who.bearer, ...headers },
      json: { image, points: [CLICK], multimaskOutput: false, ...extra },
    });

  beforeAll(async () => {
    server = await startTestServer({ db: dbKind, backend: await sharedEngine() });
    alice = await signupUser(server);
    bob = await signupUser(server);
  });
  afterEach(async () => server.checkLedger());
  afterAll(async () => server?.cleanup());

  it('a client-chosen px64: imageId cannot plant a result that another account gets for the real photo', async () => {
    const { png, claimedKey } = await lookalike();
    const planted = await masksOf(await pvs(alice, png.toString('base64'), { imageId: claimedKey }));
    // Bob sends the real photo with no imageId: the answer must be the photo's own.
    const reference = await masksOf(await pvs(bob, PHOTO.toString('base64'), { imageId: 'bobs-own-name' }));
    const answer = await masksOf(await pvs(bob, `data:image/png;base64,${PHOTO.toString('base64')}`, {}, { 'x-force-refresh': 'true' }));
    expect(reference).not.toBe(planted);
    expect(answer).toBe(reference);
  });

  it('a different photo sent under a known imageId is recomputed, and the id then names the new photo', async () => {
    const { png } = await lookalike();
    const carol = await signupUser(server);
    await masksOf(await pvs(carol, PHOTO.toString('base64'), { imageId: 'photo-1' }));
    const fresh = await masksOf(await pvs(carol, png.toString('base64'), { imageId: 'a-name-never-used' }));
    const underOldId = await masksOf(await pvs(carol, png.toString('base64'), { imageId: 'photo-1' }));
    expect(underOldId).toBe(fresh);
  });

  it('the same photo as a data URI and as bare Base64 is one request: replayed under one key, charged once', async () => {
    const dave = await signupUser(server);
    const bare = PHOTO.toString('base64');
    const first = await pvs(dave, `data:image/png;base64,${bare}`, { imageId: 'd' }, { 'idempotency-key': 'two-spellings' });
    expect(first.status).toBe(200);
    const second = await pvs(dave, bare, { imageId: 'd' }, { 'idempotency-key': 'two-spellings' });
    expect(second.status).toBe(200);
    expect(second.headers.get('x-idempotent-replayed')).toBe('true');
    // Without a key: the identical request within five minutes gets the previous result.
    const third = await pvs(dave, bare, { imageId: 'e' });
    const fourth = await pvs(dave, `data:image/jpeg;base64,${bare}`, { imageId: 'e' });
    expect(third.status).toBe(200);
    expect(fourth.status).toBe(200);
    expect(fourth.headers.get('x-idempotent-replayed')).toBe('true');
    expect(await creditsOf(server, dave)).toBe(3);
  });
});
