/** The built SPA is served with the cross-origin isolation headers ORT's threaded WASM needs. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, NO_INFERENCE, startTestServer, type TestServer } from '../../test/support/server/harness';

describe('static single-page app', () => {
  let server: TestServer;
  let dist: string;
  beforeAll(async () => {
    dist = mkdtempSync(join(tmpdir(), 'mw-dist-'));
    mkdirSync(join(dist, 'ort'));
    mkdirSync(join(dist, 'models'));
    writeFileSync(join(dist, 'index.html'), '<!doctype html><title>Maskwright</title>');
    writeFileSync(join(dist, 'ort', 'ort-wasm-simd-threaded.wasm'), Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
    writeFileSync(join(dist, 'ort', 'ort-wasm-simd-threaded.mjs'), 'export default 1;');
    writeFileSync(join(dist, 'models', 'manifest.json'), '{}');
    server = await startTestServer({ db: 'sqlite', backend: NO_INFERENCE, config: { staticDir: dist } });
  });
  afterAll(async () => {
    await server?.cleanup();
    rmSync(dist, { recursive: true, force: true });
  });

  const isolated = (response: Response) => {
    expect(response.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(response.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
    expect(response.headers.get('x-service-request-id')).toMatch(/^req_/);
  };

  it('serves index.html, ORT wasm/mjs and models with the isolation headers', async () => {
    const index = await server.fetch('/');
    expect(index.status).toBe(200);
    expect(await index.text()).toContain('Maskwright');
    isolated(index);
    const wasm = await server.fetch('/ort/ort-wasm-simd-threaded.wasm');
    expect(wasm.status).toBe(200);
    expect(wasm.headers.get('content-type')).toBe('application/wasm');
    isolated(wasm);
    const mjs = await server.fetch('/ort/ort-wasm-simd-threaded.mjs');
    expect(mjs.headers.get('content-type')).toMatch(/javascript/);
    isolated(mjs);
    isolated(await server.fetch('/models/manifest.json'));
  });

  it('falls back to index.html for client routes, but not for API paths or missing files', async () => {
    const route = await server.fetch('/settings/apiKeys');
    expect(route.status).toBe(200);
    expect(route.headers.get('content-type')).toMatch(/text\/html/);
    isolated(route);
    await expectProblem(await server.fetch('/api/v1/nothing-here'), 404, 'not-found');
    await expectProblem(await server.fetch('/assets/missing.js'), 404, 'not-found');
  });
});
