/**
 * Scale-out: three server processes on one PostgreSQL database behave as one service.
 * Needs PostgreSQL (skipped with a message when it is not reachable; fails in CI if CI configured it).
 *
 * What each test proves:
 *  - the 3 requests/second limit is global: bursts spread over three processes admit no more than one
 *    process would (a per-process limiter would admit up to 9);
 *  - an Idempotency-Key claimed on one process is honoured on the others: one charge, one answer;
 *  - a key rotated on one process fails at once on the others (no per-process auth cache);
 *  - refunds left pending by a failing process are applied by whichever process is alive, exactly once,
 *    while all processes' background loops run at the same time.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { createBackend, type Backend } from './harness/backends';
import { request, sleep, type ApiResponse } from './harness/http';
import { accountLedger, assertLedgerConsistent, unsettledAttempts } from './harness/ledger';
import { KNOB, pvsBody, SAMPLE_FILE, UNLIMITED_RATE } from './harness/knobs';
import { postgresForSuite } from './harness/postgres';
import { sampleImage } from './harness/samples';
import { startServer, type ServerProcess } from './harness/serverProcess';
import { customer, sessionCall, untilSettled } from './harness/service';
import { tinyPng } from './harness/hostileImages';

const postgres = await postgresForSuite('scale-out');
const image = sampleImage(SAMPLE_FILE);
const tiny = tinyPng(32).toString('base64');

/** Polls until `check` returns true or the deadline passes; returns whether it did. */
async function eventually(check: () => Promise<boolean>, timeoutMs: number, everyMs = 250): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await sleep(everyMs);
  }
  return check();
}

describe.skipIf(!postgres)('scale-out: 3 processes on one PostgreSQL', () => {
  let backend: Backend;
  let servers: ServerProcess[] = [];

  beforeAll(async () => {
    backend = await createBackend('postgres', 'scaleout');
    // Migrations race on first start: start one, then the others together.
    servers.push(await startServer({ name: 'scale-A', env: backend.env }));
    servers.push(...(await Promise.all(['scale-B', 'scale-C'].map((name) => startServer({ name, env: backend.env })))));
  });

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await backend?.dispose();
  });

  afterEach(async () => {
    await assertLedgerConsistent(backend.db);
  });

  it('the 3 requests/second limit holds across processes: a burst of 30 over 3 processes admits at most 3 per second of burst', async () => {
    // An account with no credit left: admitted requests end in a quick 402, so the burst stays short.
    const { session, key } = await customer(servers[0].baseUrl, { tag: 'ratelimit' });
    for (let i = 0; i < 5; i++) {
      const { final } = await untilSettled(() =>
        request(servers[i % 3].baseUrl, '/api/v1/pvs', { json: pvsBody(tiny, 'rl-tiny', { x: 16, y: 16 }), bearer: key, headers: { 'idempotency-key': `spend-${i}` } }),
      );
      expect(final.status, final.text).toBe(200);
    }
    expect((await accountLedger(backend.db, session.email)).balance).toBe(0);

    let discriminating = 0;
    for (let round = 0; round < 3; round++) {
      await sleep(1_100); // an empty window
      const t0 = Date.now();
      const responses = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          request(servers[i % 3].baseUrl, '/api/v1/pvs', {
            json: pvsBody(tiny, 'rl-tiny', { x: i % 30, y: 3 }),
            bearer: key,
            headers: { 'idempotency-key': `burst-${round}-${i}-${randomUUID()}` },
          }),
        ),
      );
      const spanMs = Date.now() - t0;
      const admitted = responses.filter((r) => r.status !== 429);
      for (const r of admitted) expect(r.status, r.text).toBe(402);
      for (const r of responses.filter((r) => r.status === 429)) {
        expect(r.body?.type).toMatch(/rate-limited$/);
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
      // A sliding window of 3 per 1000 ms admits at most 3 × (floor(span/1000) + 1) in a span.
      const bound = 3 * (Math.floor(spanMs / 1000) + 1);
      console.info(`[scale-out] burst ${round}: ${admitted.length} of 30 admitted in ${spanMs} ms (bound ${bound})`);
      expect(admitted.length).toBeGreaterThanOrEqual(1);
      expect(admitted.length).toBeLessThanOrEqual(bound);
      if (bound < 9) discriminating++;
    }
    // A per-process limiter admits 9 here; at least one burst must have been short enough to tell.
    expect(discriminating, 'at least one burst finished within 2 s').toBeGreaterThanOrEqual(1);
    expect((await accountLedger(backend.db, session.email)).charges).toBe(5);
  });

  it('an Idempotency-Key claimed on one process is honoured on the others: one charge, identical answers, replays anywhere', async () => {
    const { session, key } = await customer(servers[0].baseUrl, { tag: 'idem', buy: ['lite'] });
    const before = await accountLedger(backend.db, session.email);
    const idempotencyKey = `xproc-${randomUUID()}`;
    // A fresh imageId: the encoder runs, so the original stays in flight while the others arrive.
    const body = pvsBody(image.base64, `xproc-${randomUUID()}`);
    const send = (server: ServerProcess) => () =>
      request(server.baseUrl, '/api/v1/pvs', { json: body, bearer: key, headers: { 'idempotency-key': idempotencyKey } });

    const original = untilSettled(send(servers[0]));
    await sleep(50);
    const others = servers.slice(1).flatMap((s) => [untilSettled(send(s)), untilSettled(send(s))]);
    const results = await Promise.all([original, ...others]);

    for (const { first, final } of results) {
      expect([200, 409, 429], first.text).toContain(first.status);
      if (first.status === 409) expect(first.body?.type).toMatch(/request-in-progress$/);
      expect(final.status, final.text).toBe(200);
    }
    expect(new Set(results.map((r) => r.final.text)).size).toBe(1);

    // Replays on every process after completion: the stored answer, marked as a replay.
    const replays: ApiResponse[] = [];
    for (const server of servers) replays.push((await untilSettled(send(server))).final);
    for (const replay of replays) {
      expect(replay.status).toBe(200);
      expect(replay.text).toBe(results[0].final.text);
      expect(replay.headers.get('x-idempotent-replayed')).toBe('true');
    }

    // The same key with another body is refused on any process.
    const otherBody = { ...body, points: [{ x: 10, y: 10, positive: true }] };
    const conflict = await untilSettled(() =>
      request(servers[2].baseUrl, '/api/v1/pvs', { json: otherBody, bearer: key, headers: { 'idempotency-key': idempotencyKey } }),
    );
    expect(conflict.final.status).toBe(409);
    expect(conflict.final.body?.type).toMatch(/idempotency-key-reused$/);

    const after = await accountLedger(backend.db, session.email);
    expect(after.charges - before.charges).toBe(1);
    expect(after.balance).toBe(before.balance - 1);
  });

  it('a key rotated or revoked on one process fails at once on the others', async () => {
    const { session, apiKey } = await customer(servers[0].baseUrl, { tag: 'rotate' });
    for (const server of servers) expect((await request(server.baseUrl, '/api/v1/account', { bearer: apiKey.key })).status).toBe(200);

    const rotated = await sessionCall(session, `/api/v1/api-keys/${apiKey.id}/rotate`, { method: 'POST', json: {} }, servers[1].baseUrl);
    expect([200, 201], rotated.text).toContain(rotated.status);
    for (const server of servers) {
      const old = await request(server.baseUrl, '/api/v1/account', { bearer: apiKey.key });
      expect(old.status, `old key on ${server.name}`).toBe(401);
      expect(old.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect((await request(server.baseUrl, '/api/v1/account', { bearer: rotated.body.key })).status).toBe(200);
    }

    const revoked = await sessionCall(session, `/api/v1/api-keys/${rotated.body.id}`, { method: 'DELETE' }, servers[2].baseUrl);
    expect([200, 204]).toContain(revoked.status);
    for (const server of servers) {
      expect((await request(server.baseUrl, '/api/v1/account', { bearer: rotated.body.key })).status).toBe(401);
    }
  });

  it('refunds left pending by a failing process are applied once by the processes that are alive; every loop runs at once', async () => {
    // D fails every engine call and every refund attempt: its attempts all end refund_pending.
    const faulty = await startServer({
      name: 'scale-D-faulty',
      env: { ...backend.env, ...UNLIMITED_RATE, [KNOB.faultInjection]: 'engine=1,refund=1' },
    });
    servers.push(faulty);
    const { session, key } = await customer(faulty.baseUrl, { tag: 'refunds', buy: ['lite'] });
    const before = await accountLedger(backend.db, session.email);

    const keys = Array.from({ length: 12 }, (_, i) => `refund-${i}-${randomUUID()}`);
    const failures = await Promise.all(
      keys.map((idempotencyKey, i) =>
        untilSettled(
          () => request(faulty.baseUrl, '/api/v1/pvs', { json: pvsBody(tiny, 'refund-tiny', { x: 16, y: 16 + (i % 8) }), bearer: key, headers: { 'idempotency-key': idempotencyKey } }),
          { retryOn: (r) => r.status === 503 },
        ),
      ),
    );
    for (const { final } of failures) {
      expect(final.status, final.text).toBe(500);
      expect(final.body?.type).toMatch(/engine-failure$/);
      // D never applies a refund itself; but a live process's loop may take the pending refund between
      // D's settle and D's answer, and then the answer truthfully says it is complete.
      expect(final.headers.get('x-service-refunded') === 'true').toBe(final.body?.refunded === true);
    }
    // The dead process cannot help any more: only A, B, C are left to apply the refunds.
    faulty.kill('SIGKILL');
    await faulty.exited;

    // While a refund is pending, the same key is answered 409 refund-pending on any process.
    // (D's admissions count in the shared window, so B may first say 429: wait that out.)
    const { final: early } = await untilSettled(
      () => request(servers[1].baseUrl, '/api/v1/pvs', { json: pvsBody(tiny, 'refund-tiny', { x: 16, y: 16 }), bearer: key, headers: { 'idempotency-key': keys[0] } }),
      { retryOn: (r) => r.status === 429 },
    );
    expect([200, 409], early.text).toContain(early.status);
    if (early.status === 409) {
      expect(early.body?.type).toMatch(/refund-pending$/);
      expect(early.headers.get('retry-after')).toMatch(/^\d+$/);
    }

    const drained = await eventually(async () => (await unsettledAttempts(backend.db)).length === 0, 60_000);
    expect(drained, `unsettled attempts left: ${JSON.stringify(await unsettledAttempts(backend.db))}`).toBe(true);

    const after = await accountLedger(backend.db, session.email);
    expect(after.charges - before.charges).toBe(12 + (early.status === 200 ? 1 : 0));
    expect(after.refunds - before.refunds).toBe(12);
    const refundRefs = after.entries.filter((e) => e.kind === 'refund').map((e) => e.reference);
    expect(new Set(refundRefs).size, 'no attempt refunded twice').toBe(refundRefs.length);
    expect(after.balance).toBe(before.balance - (early.status === 200 ? 1 : 0));

    // Once refunded, the key is free again: a retry on a healthy process is a new, successful attempt.
    const retried = await untilSettled(() =>
      request(servers[2].baseUrl, '/api/v1/pvs', { json: pvsBody(tiny, 'refund-tiny', { x: 16, y: 17 }), bearer: key, headers: { 'idempotency-key': keys[1] } }),
    );
    expect(retried.final.status, retried.final.text).toBe(200);

    for (const server of servers.slice(0, 3)) {
      expect(server.output(), `${server.name} background loop errors`).not.toMatch(/\[recovery\]/);
    }
  });
});
