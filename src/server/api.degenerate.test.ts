/**
 * Input that can only give an empty answer is refused before it costs anything, and the image's
 * size comes from the decoder that makes its pixels. Over real HTTP with the real engine: each
 * degenerate prompt (a box under one pixel, an image under the minimum size, a subnormal number)
 * gets a 400 naming its rule, with no charge and no engine job; a JPEG whose EXIF orientation sits
 * after the frame header is judged in the orientation the decoder gives it.
 */
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeSharedEngine, countingJobs, jpegWithExifAfterFrameHeader, creditsOf, DATABASES, expectProblem, sampleBase64, sharedEngine, signupUser, startTestServer, type TestServer, type TestUser } from '../../test/support/server/harness';

afterAll(async () => closeSharedEngine());

describe.each(DATABASES)('degenerate prompts and image truth (%s)', (dbKind) => {
  let server: TestServer;
  let backend: ReturnType<typeof countingJobs>;
  let user: TestUser;
  const PHOTO = sampleBase64('chelsea.png');
  const pvs = (json: Record<string, unknown>) => server.fetch('/api/v1/pvs', { method: 'POST', headers: user.bearer, json: { multimaskOutput: false, ...json } });

  beforeAll(async () => {
    backend = countingJobs(await sharedEngine());
    server = await startTestServer({ db: dbKind, backend });
    user = await signupUser(server);
  });
  afterEach(async () => server.checkLedger());
  afterAll(async () => server?.cleanup());

  /** Sends `json`; expects 400 degenerate-prompt naming `rule`, no engine job and no credit taken. */
  async function refused(json: Record<string, unknown>, rule: string, path?: string): Promise<void> {
    const jobs = backend.jobs;
    const credits = await creditsOf(server, user);
    const body = await expectProblem(await pvs(json), 400, 'degenerate-prompt');
    expect(body.rule).toBe(rule);
    expect(String(body.detail)).toContain(rule);
    if (path) expect((body.errors as { path: string }[]).map((e) => e.path)).toContain(path);
    expect(backend.jobs).toBe(jobs);
    expect(await creditsOf(server, user)).toBe(credits);
  }

  it('a box narrower or lower than one pixel (5e-324, 0.5) is refused before any charge or engine work', async () => {
    await refused({ image: PHOTO, box: { x: 200, y: 150, width: 5e-324, height: 40 } }, 'box-under-one-pixel', 'box.width');
    await refused({ image: PHOTO, box: { x: 200, y: 150, width: 40, height: 0.5 } }, 'box-under-one-pixel', 'box.height');
  });

  it('a subnormal coordinate is refused, naming the rule and the field', async () => {
    await refused({ image: PHOTO, points: [{ x: 5e-324, y: 100, positive: true }] }, 'subnormal-number', 'points.0.x');
    await refused({ image: PHOTO, box: { x: 200, y: 1e-310, width: 40, height: 40 } }, 'subnormal-number', 'box.y');
  });

  it('an image under the minimum size (1 × 1, 4 × 300) is refused on /pvs and /segment', async () => {
    const dot = (await sharp({ create: { width: 1, height: 1, channels: 3, background: '#808080' } }).png().toBuffer()).toString('base64');
    await refused({ image: dot, points: [{ x: 0, y: 0 }] }, 'image-under-minimum-size');
    const sliver = (await sharp({ create: { width: 4, height: 300, channels: 3, background: '#808080' } }).png().toBuffer()).toString('base64');
    await refused({ image: sliver, points: [{ x: 2, y: 100 }] }, 'image-under-minimum-size');
    const jobs = backend.jobs;
    const body = await expectProblem(await server.fetch('/api/v1/segment', { method: 'POST', headers: user.bearer, json: { image: dot, prompts: ['cat'] } }), 400, 'degenerate-prompt');
    expect(body.rule).toBe('image-under-minimum-size');
    expect(backend.jobs).toBe(jobs);
  });

  it('a small but sound box and a point at exactly 0 are still served', async () => {
    const response = await pvs({ image: PHOTO, box: { x: 220, y: 160, width: 1, height: 1 }, points: [{ x: 0, y: 0, positive: false }] });
    expect(response.status).toBe(200);
  });

  it('EXIF orientation after the frame header: prompts are judged on the photo as decoded (600 × 400)', async () => {
    const jpeg = (await jpegWithExifAfterFrameHeader()).toString('base64');
    const meta = await sharp(Buffer.from(jpeg, 'base64')).metadata();
    expect([meta.width, meta.height, meta.orientation]).toEqual([400, 600, 6]);
    const credits = await creditsOf(server, user);
    // On the decoded photo, beyond the stored one's width: served and charged.
    const onImage = await pvs({ image: jpeg, points: [{ x: 590, y: 200 }] });
    expect(onImage.status).toBe(200);
    // On the stored 400 × 600, off the decoded 600 × 400: refused, nothing charged.
    const offImage = await expectProblem(await pvs({ image: jpeg, points: [{ x: 200, y: 590 }] }), 400, 'validation-failed');
    expect(String(offImage.detail)).toContain('600 × 400');
    const charged = onImage.headers.get('x-service-refunded') === 'true' ? 0 : 1;
    expect(await creditsOf(server, user)).toBe(credits - charged);
  });
});
