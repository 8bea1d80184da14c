/**
 * TEXT_UPSTREAM_URL over real HTTP: /api/v1/segment forwarded to a local stand-in that speaks
 * Roboflow's sam3/concept_segment wire format (the real SAM 3 service is a third party we cannot
 * reach from tests). Successes are charged once; upstream failures take the refund path.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { creditsOf, DATABASES, expectProblem, NO_INFERENCE, sampleBase64, signupUser, startTestServer, type TestServer, type TestUser } from '../../test/support/server/harness';

const CAT = sampleBase64('chelsea.png');

type Mode = 'answer' | 'http-502' | 'wrong-shape' | 'hang';
let mode: Mode = 'answer';
const calls: { prompts: string[]; image: string }[] = [];
let upstream: Server;
let upstreamUrl: string;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const body = JSON.parse(raw) as { image: { value: string }; prompts: { text: string }[] };
      calls.push({ prompts: body.prompts.map((p) => p.text), image: body.image.value });
      if (mode === 'hang') return; // never answers: the adapter's timeout must fire
      if (mode === 'http-502') {
        res.writeHead(502, { 'content-type': 'application/json' }).end('{"message":"model server down"}');
        return;
      }
      const answer =
        mode === 'wrong-shape'
          ? { results: 'not the concept_segment shape' }
          : {
              prompt_results: body.prompts.map((p, i) => ({
                prompt_index: i,
                echo: { prompt_index: i, type: 'text', text: p.text },
                predictions: p.text === 'unicorn' ? [] : [{ masks: [[[40, 30], [300, 30], [300, 280], [40, 280]]], confidence: 0.87, format: 'polygon' }],
              })),
              time: 0.05,
            };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((done) => upstream.listen(0, '127.0.0.1', done));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});
afterAll(async () => {
  upstream.closeAllConnections();
  await new Promise((done) => upstream.close(done));
});

describe.each(DATABASES)('text prompts forwarded to a SAM 3 upstream (%s)', (dbKind) => {
  let server: TestServer;
  let user: TestUser;
  const segment = (body: unknown) => server.fetch('/api/v1/segment', { method: 'POST', headers: user.bearer, json: body });

  beforeAll(async () => {
    // No inference workers at all: the upstream path must not need one. A short timeout for the hang case.
    server = await startTestServer({ db: dbKind, backend: NO_INFERENCE, config: { textUpstream: { url: upstreamUrl, timeoutMs: 1_500, maxInFlight: 4 } } });
  });
  beforeEach(async () => {
    mode = 'answer';
    calls.length = 0;
    user = await signupUser(server);
  });
  afterEach(async () => server.checkLedger());
  afterAll(async () => server?.cleanup());

  it('maps the upstream answer to prompt_results and charges one credit', async () => {
    const response = await segment({ image: `data:image/png;base64,${CAT}`, prompts: ['cat', 'unicorn'] });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      prompt_results: [
        { echo: { text: 'cat' }, predictions: [{ label: 'cat', confidence: 0.87, masks: [[[40, 30], [300, 30], [300, 280], [40, 280]]] }] },
        { echo: { text: 'unicorn' }, predictions: [] },
      ],
    });
    expect(calls).toEqual([{ prompts: ['cat', 'unicorn'], image: CAT }]);
    expect(response.headers.get('x-service-refunded')).toBeNull();
    expect(await creditsOf(server, user)).toBe(4);
  });

  it('refunds an empty upstream answer, keeping the 200 shape', async () => {
    const response = await segment({ image: CAT, prompts: ['unicorn'] });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-service-refunded')).toBe('true');
    expect(await response.json()).toEqual({ prompt_results: [{ echo: { text: 'unicorn' }, predictions: [] }] });
    expect(await creditsOf(server, user)).toBe(5);
  });

  it.each<Mode>(['http-502', 'wrong-shape', 'hang'])('answers an upstream failure (%s) with 500 upstream-failure and refunds it', async (failure) => {
    mode = failure;
    const response = await segment({ image: CAT, prompts: ['cat'] });
    const problem = await expectProblem(response, 500, 'upstream-failure');
    expect(problem.refunded).toBe(true);
    expect(response.headers.get('x-service-refunded')).toBe('true');
    expect(await creditsOf(server, user)).toBe(5);
    // Not replayed: once refunded, a retry with the same body is a new attempt that can succeed.
    mode = 'answer';
    const retry = await segment({ image: CAT, prompts: ['cat'] });
    expect(retry.status).toBe(200);
    expect(await creditsOf(server, user)).toBe(4);
  });

  it('refuses a file that is not an image with 400 before calling the upstream', async () => {
    await expectProblem(await segment({ image: Buffer.from('not an image at all').toString('base64'), prompts: ['cat'] }), 400, 'invalid-image');
    expect(calls).toEqual([]);
    expect(await creditsOf(server, user)).toBe(5);
  });
});
