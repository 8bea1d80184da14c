/**
 * Images are checked by decoding them whole, every frame, on every route that takes one (issue 39),
 * over real HTTP: a 35-byte GIF whose frame is far larger than its header's screen, and PNG or JPEG
 * files cut short, are answered 400 `invalid-image` before anything is stored or charged, never 201
 * and a 500 at every thumbnail later.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Project } from '../contract/projects';
import { gifFrameBomb } from '../../test/support/badImages';
import { creditsOf, DATABASES, expectProblem, NO_INFERENCE, sampleBase64, signupUser, startTestServer, type TestServer, type TestUser } from '../../test/support/server/harness';

const PNG = Buffer.from(sampleBase64('chelsea.png'), 'base64');
const truncatedPng = () => PNG.subarray(0, Math.floor(PNG.length * 0.6));
const truncatedJpeg = async () => {
  const jpeg = await sharp(PNG).jpeg().toBuffer();
  return jpeg.subarray(0, Math.floor(jpeg.length / 2));
};

describe.each(DATABASES)('images checked by decoding (%s)', (dbKind) => {
  let server: TestServer;
  let user: TestUser;
  beforeAll(async () => {
    // No engine: every refusal here must come before any job. The embeddings route asks which encoder runs first.
    const sha256 = '0'.repeat(64);
    server = await startTestServer({ db: dbKind, backend: { ...NO_INFERENCE, encoderModel: async () => ({ file: 'encoder.onnx', sha256, id: `encoder.onnx@${sha256}` }) } });
    user = await signupUser(server);
  });
  afterAll(async () => server?.cleanup());

  const bad = async () => ({
    'GIF frame of 16300²': gifFrameBomb(100, 16_300),
    'GIF frame of 60000²': gifFrameBomb(100, 60_000),
    'truncated PNG': truncatedPng(),
    'truncated JPEG': await truncatedJpeg(),
  });

  it('refuses them at upload into a project with 400 invalid-image, and stores nothing', async () => {
    const project = (await (await server.fetch('/api/v1/projects', { method: 'POST', headers: user.bearer, json: { name: 'Bombs' } })).json()) as Project;
    for (const [what, bytes] of Object.entries(await bad())) {
      const response = await server.fetch(`/api/v1/projects/${project.id}/images`, { method: 'POST', headers: user.bearer, json: { name: 'x.gif', image: bytes.toString('base64') } });
      const problem = await expectProblem(response, 400, 'invalid-image');
      expect(String(problem.detail), what).toMatch(/megapixels|does not decode/);
    }
    const images = (await (await server.fetch(`/api/v1/projects/${project.id}/images`, { headers: user.bearer })).json()) as { images: unknown[] };
    expect(images.images).toEqual([]);
    // A whole file still goes in.
    expect((await server.fetch(`/api/v1/projects/${project.id}/images`, { method: 'POST', headers: user.bearer, json: { name: 'chelsea.png', image: PNG.toString('base64') } })).status).toBe(201);
  });

  it('refuses them on every metered route before any charge', async () => {
    const credits = await creditsOf(server, user);
    for (const [what, bytes] of Object.entries(await bad())) {
      const image = bytes.toString('base64');
      for (const [path, body] of [
        ['/api/v1/pvs', { image, points: [{ x: 10, y: 10 }], multimaskOutput: false }],
        ['/api/v1/segment', { image, prompts: ['cat'] }],
        ['/api/v1/everything', { image }],
        ['/api/v1/embeddings', { image }],
      ] as const) {
        const response = await server.fetch(path, { method: 'POST', headers: user.bearer, json: body });
        expect(response.status, `${what} on ${path}`).toBe(400);
        expect(((await response.json()) as { type: string }).type, `${what} on ${path}`).toBe('/problems/invalid-image');
      }
    }
    expect(await creditsOf(server, user)).toBe(credits);
  });
});
