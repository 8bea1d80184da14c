/**
 * What the API benches share: a server process of their own (temporary SQLite, demo payments), raw
 * HTTP calls over a keep-alive agent, customers with an API key, and latency statistics.
 */
import { type Agent, request as httpRequest } from 'node:http';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export interface CallAnswer {
  status: number;
  text: string;
  headers: Record<string, string | string[] | undefined>;
}

export function call(agent: Agent, base: string, method: string, path: string, headers: Record<string, string>, body?: string | Buffer): Promise<CallAnswer> {
  return new Promise((resolveCall, reject) => {
    const url = new URL(path, base);
    const req = httpRequest(
      { agent, method, hostname: url.hostname, port: url.port, path: url.pathname, headers: { ...headers, ...(body ? { 'content-length': Buffer.byteLength(body) } : {}) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => resolveCall({ status: res.statusCode ?? 0, text, headers: res.headers }));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      // A kept-alive socket the server closed at its idle limit just as this request went out: the
      // request never reached the server, so it is sent again on a fresh socket (Node's documented pattern).
      if (req.reusedSocket && error.code === 'ECONNRESET') call(agent, base, method, path, headers, body).then(resolveCall, reject);
      else reject(error);
    });
    req.end(body);
  });
}

export interface Stats {
  n: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  mean: number;
  perSecond: number;
  statuses: Record<string, number>;
}

export function stats(samples: number[], elapsedMs: number, statuses: Record<string, number> = {}): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
  const round = (v: number) => Math.round(v * 100) / 100;
  return {
    n: samples.length,
    p50: round(q(0.5)),
    p90: round(q(0.9)),
    p95: round(q(0.95)),
    p99: round(q(0.99)),
    mean: round(samples.reduce((a, b) => a + b, 0) / samples.length),
    perSecond: round((samples.length / elapsedMs) * 1000),
    statuses,
  };
}

/** A new account with an API key and `proPackages` Pro packages bought in demo mode; answers its Bearer headers. */
export async function newCustomer(agent: Agent, base: string, tag: string, proPackages: number): Promise<Record<string, string>> {
  const json = { 'content-type': 'application/json' };
  const signup = await call(agent, base, 'POST', '/api/v1/auth/signup', json, JSON.stringify({ email: `${tag}-${Date.now()}@example.test`, password: 'bench-password-1' }));
  if (signup.status !== 201) throw new Error(`signup failed: ${signup.status} ${signup.text}`);
  const cookies = ([] as string[]).concat(signup.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]);
  const csrf = cookies.find((c) => c.startsWith('mw_csrf='))!.slice('mw_csrf='.length);
  const session = { cookie: cookies.join('; '), 'x-csrf-token': csrf };
  const key = JSON.parse((await call(agent, base, 'POST', '/api/v1/api-keys', session)).text).key as string;
  for (let i = 0; i < proPackages; i++) {
    const bought = await call(agent, base, 'POST', '/api/v1/credit-purchases', { ...session, ...json }, JSON.stringify({ packageId: 'pro' }));
    if (JSON.parse(bought.text).mode !== 'demo') throw new Error('the bench needs demo payment mode (no STRIPE_SECRET_KEY)');
  }
  return { ...json, authorization: `Bearer ${key}` };
}
