/**
 * Security headers on every answer, over real HTTP: the studio's page, its static files, the API,
 * problems and even the HTTP parser's own refusals carry a strict Content-Security-Policy with
 * frame-ancestors 'none', Referrer-Policy and Permissions-Policy; HSTS only when configured. That
 * the studio works under this policy is proven in Chromium (e2e/appSecurityHeaders.spec.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DATABASES, NO_INFERENCE, signupUser, startTestServer, type TestServer } from '../../test/support/server/harness';

function expectSecurityHeaders(headers: Headers, where: string): void {
  const csp = headers.get('content-security-policy') ?? '';
  const directives = Object.fromEntries(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values]));
  expect(directives['frame-ancestors'], where).toEqual(["'none'"]);
  expect(directives['script-src'], where).toEqual(["'self'", "'wasm-unsafe-eval'"]);
  expect(directives['default-src'], where).toEqual(["'self'"]);
  expect(directives['object-src'], where).toEqual(["'none'"]);
  expect(csp, where).not.toContain('unsafe-inline');
  expect(headers.get('x-frame-options'), where).toBe('DENY');
  expect(headers.get('referrer-policy'), where).toBe('no-referrer');
  expect(headers.get('permissions-policy'), where).toContain('camera=()');
  expect(headers.get('cross-origin-embedder-policy'), where).toBe('require-corp');
}

describe.each(DATABASES)('security headers (%s)', (dbKind) => {
  let server: TestServer | undefined;
  let staticDir: string;
  afterEach(async () => {
    await server?.cleanup();
    server = undefined;
    rmSync(staticDir, { recursive: true, force: true });
  });
  const start = async (config: Record<string, unknown> = {}) => {
    staticDir = mkdtempSync(join(tmpdir(), 'mw-static-'));
    writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>studio</title><script type="module" src="/app.js"></script>');
    writeFileSync(join(staticDir, 'app.js'), 'export {};');
    server = await startTestServer({ db: dbKind, backend: NO_INFERENCE, config: { staticDir, ...config } });
    return server;
  };

  it('the studio, its files, the API, problems and client-route fallbacks carry the policy; no HSTS unless configured', async () => {
    const s = await start();
    for (const path of ['/', '/app.js', '/some/client/route', '/api/v1/health', '/api/v1/credit-packages', '/api/v1/nothing-here', '/api/v1/account']) {
      const response = await s.fetch(path);
      expectSecurityHeaders(response.headers, path);
      expect(response.headers.get('strict-transport-security'), path).toBeNull();
    }
  });

  it('answers the HTTP parser refuses carry it too', async () => {
    const s = await start();
    const { hostname, port } = new URL(s.url);
    const raw = await new Promise<string>((resolve) => {
      const socket = connect(Number(port), hostname, () => socket.write('NONSENSE\r\n\r\n'));
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString('latin1')));
      socket.on('close', () => resolve(text));
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    const headers = new Headers(raw.split('\r\n\r\n')[0].split('\r\n').slice(1).map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()] as [string, string]));
    expectSecurityHeaders(headers, 'parser refusal');
  });

  it("a project's event stream (written outside the usual send path) carries the policy and nosniff too", async () => {
    const s = await start();
    const user = await signupUser(s);
    const created = await s.fetch('/api/v1/projects', { method: 'POST', headers: user.bearer, json: { name: 'Live', classes: [] } });
    const { id } = (await created.json()) as { id: string };
    const controller = new AbortController();
    const response = await s.fetch(`/api/v1/projects/${id}/events`, { headers: user.bearer, signal: controller.signal });
    try {
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expectSecurityHeaders(response.headers, 'event stream');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('x-service-request-id')).toMatch(/^req_/);
    } finally {
      controller.abort();
    }
  });

  it('HSTS_MAX_AGE_SECONDS sends Strict-Transport-Security', async () => {
    const s = await start({ hstsMaxAgeSeconds: 31_536_000 });
    expect((await s.fetch('/')).headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
    expect((await s.fetch('/api/v1/health')).headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
  });
});
