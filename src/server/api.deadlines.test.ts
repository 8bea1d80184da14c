/**
 * Slow clients cannot hold connections: over raw TCP sockets against a real server, headers and
 * bodies that trickle in past their deadlines get 408 `request-timeout` and a closed socket, a body
 * still trickling after its request was already answered (a 429) is cut off too, and an idle
 * keep-alive connection is closed.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES, NO_INFERENCE, signupUser, startTestServer, type TestServer } from '../../test/support/server/harness';

const DEADLINES = { headersTimeoutMs: 800, requestTimeoutMs: 1500, keepAliveTimeoutMs: 400 };

interface Trickle {
  socket: Socket;
  /** Everything the server sent, as text. */
  received(): string;
  /** Resolves with the milliseconds from the start until the server closed the socket. */
  closed: Promise<number>;
  stop(): void;
}

/** Sends `head` at once, then one byte of `drip` every `everyMs` until stopped or closed. */
function trickle(url: string, head: string, drip: string, everyMs = 100): Trickle {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  const started = Date.now();
  let text = '';
  socket.on('data', (chunk) => (text += chunk.toString('latin1')));
  socket.on('error', () => undefined);
  const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now() - started)));
  let i = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || socket.writableEnded || drip.length === 0) return clearInterval(timer);
    socket.write(drip[i % drip.length]);
    i += 1;
  }, everyMs);
  socket.on('close', () => clearInterval(timer));
  socket.write(head);
  return { socket, received: () => text, closed, stop: () => clearInterval(timer) };
}

const withinSeconds = (ms: number, seconds: number) => expect(ms).toBeLessThan(seconds * 1000);

describe.each(DATABASES)('deadlines (%s)', { timeout: 15_000 }, (dbKind) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ db: dbKind, backend: NO_INFERENCE, rateLimitPerSecond: 1, config: { deadlines: DEADLINES } });
  });
  afterAll(async () => server?.cleanup());

  it('headers that do not arrive within HEADERS_TIMEOUT_MS: 408 request-timeout, socket closed', async () => {
    const slow = trickle(server.url, 'GET /api/v1/health HTTP/1.1\r\nHost: x\r\n', 'X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaa');
    withinSeconds(await slow.closed, 5);
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(slow.received()).toContain('/problems/request-timeout');
  });

  it('a body that does not arrive within REQUEST_TIMEOUT_MS: 408, socket closed', async () => {
    const body = JSON.stringify({ email: 'slow@example.test', password: 'x'.repeat(400) });
    const slow = trickle(
      server.url,
      `POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      body,
    );
    withinSeconds(await slow.closed, 6);
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('a body still trickling after its request was answered (429 before the body was read) is cut off', async () => {
    const user = await signupUser(server);
    const head = (n: number) =>
      `POST /api/v1/pvs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${user.key}\r\nContent-Type: application/json\r\nContent-Length: ${n}\r\n\r\n`;
    // The first call takes the account's one request per second (and is answered 503: no engine).
    const first = await server.fetch('/api/v1/pvs', { method: 'POST', headers: user.bearer, json: { image: 'aGk=', points: [{ x: 1, y: 1 }] } });
    expect(first.status).not.toBe(429);
    const slow = trickle(server.url, head(100_000), 'a');
    withinSeconds(await slow.closed, 6);
    expect(slow.received()).toMatch(/^HTTP\/1\.1 429 /);
  });

  it('an idle keep-alive connection is closed after KEEP_ALIVE_TIMEOUT_MS', async () => {
    const idle = trickle(server.url, 'GET /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n', '', 1_000_000);
    withinSeconds(await idle.closed, 3);
    expect(idle.received()).toMatch(/^HTTP\/1\.1 200 /);
  });
});
