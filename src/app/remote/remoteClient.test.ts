/**
 * The studio's paid-call client against the real API server (a real process, real SQLite, real
 * inference): retries keep their Idempotency-Key, 429 is waited out, 402/401 come back explained.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PvsResponse } from '../../contract';
import { sampleImage } from '../../../test/reliability/harness/samples';
import { startServer, type ServerProcess } from '../../../test/reliability/harness/serverProcess';
import { credits, customer } from '../../../test/reliability/harness/service';
import { paidCall, RemoteCallError, remotePvs } from './remoteClient';

let server: ServerProcess;
let dataDir: string;
const image = sampleImage('chelsea.png').dataUri;
const pvsBody = (x: number) => ({ image, imageId: 'chelsea-test', points: [{ x, y: 150, positive: true }], multimaskOutput: false });

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'mw-studio-client-'));
  server = await startServer({ name: 'studio-client', env: { DATA_DIR: dataDir, RATE_LIMIT_PER_SECOND: '1', INFERENCE_THREADS: '1' } });
});

afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('paid calls from the studio', () => {
  it('a retry with the same Idempotency-Key is charged once and returns the same result', async () => {
    const { key } = await customer(server.baseUrl, { tag: 'studio-idem' });
    const config = { baseUrl: server.baseUrl, apiKey: key };
    const waits: string[] = [];
    const options = { idempotencyKey: 'studio-test-same-key', onWaiting: (reason: string) => waits.push(reason) };
    // Two sends of one request at once, as after a dropped connection: one runs, the other waits (409/429) and gets the stored result.
    const [a, b] = await Promise.all([remotePvs(config, pvsBody(220), options), remotePvs(config, pvsBody(220), options)]);
    expect(a.idempotencyKey).toBe('studio-test-same-key');
    expect(b.data).toEqual(a.data);
    expect(a.data.prompts[0].predictions.length).toBeGreaterThan(0);
    expect(a.requestId).toMatch(/\S+/);
    expect(await credits(server.baseUrl, key)).toBe(4);
  });

  it('waits out 429 (Retry-After) instead of failing, each call keeping its key', async () => {
    const { key } = await customer(server.baseUrl, { tag: 'studio-rate' });
    const config = { baseUrl: server.baseUrl, apiKey: key };
    const waits: string[] = [];
    const results = await Promise.all([100, 200, 300].map((x) => remotePvs(config, pvsBody(x), { onWaiting: (reason) => waits.push(reason) })));
    expect(results).toHaveLength(3);
    expect(new Set(results.map((r) => r.idempotencyKey)).size).toBe(3);
    // Three calls at once against 1 request/second: at least one was told to come back later.
    expect(waits.some((w) => /Rate limit|waiting/i.test(w))).toBe(true);
    expect(await credits(server.baseUrl, key)).toBe(2);
  });

  it('explains 402 when the credits run out, and 401 for a bad key', async () => {
    const { key } = await customer(server.baseUrl, { tag: 'studio-broke' });
    const config = { baseUrl: server.baseUrl, apiKey: key };
    for (let i = 0; i < 5; i++) await paidCall(config, '/api/v1/pvs', pvsBody(50 + i * 40), PvsResponse);
    expect(await credits(server.baseUrl, key)).toBe(0);
    const broke = await remotePvs(config, pvsBody(400)).catch((e: unknown) => e);
    expect(broke).toBeInstanceOf(RemoteCallError);
    expect((broke as RemoteCallError).status).toBe(402);
    expect((broke as RemoteCallError).message).toMatch(/Buy a credit package/);
    expect((broke as RemoteCallError).requestId).toMatch(/\S+/);

    const unknown = await remotePvs({ baseUrl: server.baseUrl, apiKey: 'mwk_not_a_real_key' }, pvsBody(10)).catch((e: unknown) => e);
    expect((unknown as RemoteCallError).status).toBe(401);
    expect((unknown as RemoteCallError).message).toMatch(/API key/);
  });
});
