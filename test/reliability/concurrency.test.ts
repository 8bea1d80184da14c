/**
 * Concurrency, over real HTTP against a real server process and a real database (SQLite always;
 * PostgreSQL when reachable). The rate limit is raised for this suite so that requests really
 * race inside the billing code instead of being spaced out by the limiter (the limiter has its own
 * tests in scaleOut.test.ts). After every test: balance = sum of ledger entries for every account.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { createBackend, type Backend, type BackendKind } from './harness/backends';
import { request, type ApiResponse } from './harness/http';
import { accountLedger, assertLedgerConsistent } from './harness/ledger';
import { pvsBody, SAMPLE_FILE, UNLIMITED_RATE } from './harness/knobs';
import { postgresForSuite } from './harness/postgres';
import { sampleImage } from './harness/samples';
import { startServer, type ServerProcess } from './harness/serverProcess';
import { customer, untilSettled } from './harness/service';

const backends: BackendKind[] = (await postgresForSuite('concurrency')) ? ['sqlite', 'postgres'] : ['sqlite'];
const image = sampleImage(SAMPLE_FILE);

function expectRequestId(response: ApiResponse) {
  expect(response.headers.get('x-service-request-id'), `X-Service-Request-ID on a ${response.status}`).toBeTruthy();
}

describe.each(backends)('concurrency (%s)', (kind) => {
  let backend: Backend;
  let server: ServerProcess;

  beforeAll(async () => {
    backend = await createBackend(kind, 'concurrency');
    server = await startServer({ name: `concurrency-${kind}`, env: { ...backend.env, ...UNLIMITED_RATE } });
  });

  afterAll(async () => {
    await server?.stop();
    await backend?.dispose();
  });

  afterEach(async () => {
    await assertLedgerConsistent(backend.db);
  });

  it('200 concurrent identical requests with one Idempotency-Key: one charge, 200 identical answers (409 + Retry-After while it runs, then the stored result)', async () => {
    const { session, key } = await customer(server.baseUrl, { tag: 'conc200', buy: ['lite'] });
    const before = await accountLedger(backend.db, session.email);
    const idempotencyKey = `conc-${randomUUID()}`;
    const body = pvsBody(image.base64, `conc200-${kind}`);
    const send = () =>
      request(server.baseUrl, '/api/v1/pvs', { json: body, bearer: key, headers: { 'idempotency-key': idempotencyKey } });

    const results = await Promise.all(Array.from({ length: 200 }, () => untilSettled(send, { maxWaitMs: 120_000 })));

    for (const { first, final } of results) {
      expectRequestId(first);
      expectRequestId(final);
      // While the one real attempt runs, the others are told to come back; nothing else is allowed.
      expect([200, 409], first.text).toContain(first.status);
      if (first.status === 409) {
        expect(first.body?.type).toMatch(/request-in-progress$/);
        expect(first.headers.get('retry-after')).toMatch(/^\d+$/);
        expect(first.headers.get('content-type')).toMatch(/application\/problem\+json/);
      }
      expect(final.status, final.text).toBe(200);
    }
    const bodies = new Set(results.map((r) => r.final.text));
    expect(bodies.size, 'every caller receives byte-identical JSON').toBe(1);
    expect(JSON.parse([...bodies][0]).prompts[0].predictions.length).toBeGreaterThan(0);

    const after = await accountLedger(backend.db, session.email);
    expect(after.charges - before.charges, 'exactly one charge').toBe(1);
    expect(after.refunds - before.refunds).toBe(0);
    expect(after.balance).toBe(before.balance - 1);
    const firstStatuses = results.map((r) => r.first.status);
    console.info(`[concurrency ${kind}] 200 identical keyed: first answers 200×${firstStatuses.filter((s) => s === 200).length}, 409×${firstStatuses.filter((s) => s === 409).length}`);
  });

  it('an account with 5 credits sends 20 concurrent requests with distinct keys: exactly 5 succeed, 15 get 402', async () => {
    const { session, key } = await customer(server.baseUrl, { tag: 'conc5' });
    expect((await accountLedger(backend.db, session.email)).balance).toBe(5);
    const send = (i: number) => () =>
      request(server.baseUrl, '/api/v1/pvs', {
        json: pvsBody(image.base64, `conc5-${kind}`),
        bearer: key,
        headers: { 'idempotency-key': `conc5-${i}-${randomUUID()}` },
      });

    // 503 (pool full, nothing charged) is retried like a client would; every request ends 200 or 402.
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => untilSettled(send(i), { maxWaitMs: 120_000 })));
    const finals = results.map((r) => r.final);
    for (const response of finals) {
      expectRequestId(response);
      expect([200, 402], response.text).toContain(response.status);
      if (response.status === 402) {
        expect(response.body?.type).toMatch(/insufficient-credits$/);
        expect(response.headers.get('content-type')).toMatch(/application\/problem\+json/);
      }
    }
    const refundedSuccesses = finals.filter((r) => r.status === 200 && r.headers.get('x-service-refunded') === 'true').length;
    expect(refundedSuccesses, 'the sample click never yields an empty (refunded) result').toBe(0);
    expect(finals.filter((r) => r.status === 200).length).toBe(5);
    expect(finals.filter((r) => r.status === 402).length).toBe(15);

    const after = await accountLedger(backend.db, session.email);
    expect(after.balance).toBe(0);
    expect(after.charges).toBe(5);
  });

  it('10 concurrent identical requests without a key: one charge, identical answers (5-minute reuse)', async () => {
    const { session, key } = await customer(server.baseUrl, { tag: 'concunkeyed', buy: ['lite'] });
    const before = await accountLedger(backend.db, session.email);
    const body = pvsBody(image.base64, `unkeyed-${kind}`, { x: 100, y: 120 });
    const send = () => request(server.baseUrl, '/api/v1/pvs', { json: body, bearer: key });

    const results = await Promise.all(Array.from({ length: 10 }, () => untilSettled(send, { maxWaitMs: 120_000 })));
    for (const { first, final } of results) {
      expect([200, 409], first.text).toContain(first.status);
      expect(final.status, final.text).toBe(200);
    }
    expect(new Set(results.map((r) => r.final.text)).size).toBe(1);
    const after = await accountLedger(backend.db, session.email);
    expect(after.charges - before.charges).toBe(1);
  });

  it('one Idempotency-Key with two different bodies at once: one attempt runs, the other body gets 409, one charge', async () => {
    const { session, key } = await customer(server.baseUrl, { tag: 'concdiff', buy: ['lite'] });
    const before = await accountLedger(backend.db, session.email);
    const idempotencyKey = `diff-${randomUUID()}`;
    const bodies = [pvsBody(image.base64, `diff-${kind}`, { x: 220, y: 160 }), pvsBody(image.base64, `diff-${kind}`, { x: 60, y: 40 })];
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        request(server.baseUrl, '/api/v1/pvs', { json: bodies[i % 2], bearer: key, headers: { 'idempotency-key': idempotencyKey } }),
      ),
    );
    // 20 at once is more than the inference pool admits (1 worker + 8 queued): a request that reaches
    // the pool before the key is claimed may be told 503 + Retry-After, which charges nothing.
    for (const r of responses) {
      expect([200, 409, 503], r.text).toContain(r.status);
      if (r.status === 503) expect(r.headers.get('retry-after')).toMatch(/^\d+$/);
    }
    const winningBodies = new Set(responses.flatMap((r, i) => (r.status === 200 ? [i % 2] : [])));
    expect(winningBodies.size, 'at most one of the two bodies is ever answered 200 under the key').toBeLessThanOrEqual(1);
    // The first to claim the key owns it: the same body gets the stored result, the other a reuse conflict.
    const owner = await untilSettled(() =>
      request(server.baseUrl, '/api/v1/pvs', { json: bodies[0], bearer: key, headers: { 'idempotency-key': idempotencyKey } }),
    );
    const winningBody = owner.final.status === 200 ? 0 : 1;
    if (winningBodies.size === 1) expect([...winningBodies][0]).toBe(winningBody);
    const settled = await untilSettled(() =>
      request(server.baseUrl, '/api/v1/pvs', { json: bodies[1 - winningBody], bearer: key, headers: { 'idempotency-key': idempotencyKey } }),
    );
    expect(settled.final.status).toBe(409);
    expect(settled.final.body?.type).toMatch(/idempotency-key-reused$/);
    const after = await accountLedger(backend.db, session.email);
    expect(after.charges - before.charges).toBe(1);
  });
});
