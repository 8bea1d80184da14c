/**
 * Crash safety and graceful shutdown of real server processes.
 *
 *  - kill -9 while the engine works on a charged request (PostgreSQL, a second process alive):
 *    the surviving process recovers the orphan (refund), and retrying with the same key ends in one
 *    consistent answer with exactly one net charge;
 *  - the same on the embedded SQLite default, restarting the killed process on its data directory:
 *    the committed charge survived the kill (WAL + synchronous=FULL), recovery refunds it;
 *  - kill -9 under concurrent writes leaves a SQLite file that passes integrity_check and the ledger invariant;
 *  - SIGTERM drains in-flight requests (they complete with 200) and the process exits cleanly.
 *
 * The engine is slowed with FAULT_INJECTION engine_delay_ms so a request is reliably in flight when the
 * signal arrives: the tests wait for the attempt to reach `charged` in the database, never on timing.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import path from 'node:path';
import { createBackend, type Backend } from './harness/backends';
import { request, sleep, type ApiResponse } from './harness/http';
import { accountLedger, assertLedgerConsistent, unsettledAttempts, type DirectDb } from './harness/ledger';
import { KNOB, pvsBody, SAMPLE_FILE, UNLIMITED_RATE } from './harness/knobs';
import { sampleImage } from './harness/samples';
import { postgresForSuite } from './harness/postgres';
import { startServer, type ServerProcess } from './harness/serverProcess';
import { customer, untilSettled } from './harness/service';
import { tinyPng } from './harness/hostileImages';

const postgres = await postgresForSuite('crash');
const tiny = tinyPng(32).toString('base64');
/** Long enough that the kill surely lands while the engine "works"; the tests never wait it out. */
const SLOW_ENGINE = { [KNOB.faultInjection]: 'engine_delay_ms=8000' };
/** Orphans are detected when the dead owner's heartbeat is stale (10 s) plus a sweep; generous bound. */
const RECOVERY_WAIT_MS = 60_000;

async function waitForAttemptState(db: DirectDb, email: string, state: string, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  const quoted = email.replace(/'/g, "''");
  while (Date.now() < deadline) {
    const rows = await db.all<{ id: string }>(
      `SELECT t.id AS id FROM attempts t JOIN accounts a ON a.id = t.account_id WHERE a.email = '${quoted}' AND t.state = '${state}'`,
    );
    if (rows.length > 0) return rows[0].id;
    await sleep(50);
  }
  throw new Error(`no attempt of ${email} reached state ${state} within ${timeoutMs} ms`);
}

/** The request whose server dies under it: resolves to the error instead of throwing. */
function inFlight(send: () => Promise<ApiResponse>): Promise<ApiResponse | Error> {
  return send().catch((error: Error) => error);
}

async function expectRecoveredWithOneNetCharge(db: DirectDb, email: string, before: { balance: number; charges: number; refunds: number }, orphanId: string) {
  const after = await accountLedger(db, email);
  const orphanEntries = after.entries.filter((e) => e.reference === orphanId);
  expect(orphanEntries.map((e) => e.kind).sort(), 'the orphaned attempt: charged once, refunded once').toEqual(['charge', 'refund']);
  expect(after.balance, 'net one credit for the retried key').toBe(before.balance - 1);
  expect(await unsettledAttempts(db)).toEqual([]);
  await assertLedgerConsistent(db);
}

describe.skipIf(!postgres)('crash safety on PostgreSQL (kill -9, another process recovers)', () => {
  let backend: Backend;
  let survivor: ServerProcess;
  const started: ServerProcess[] = [];

  beforeAll(async () => {
    backend = await createBackend('postgres', 'crash');
    survivor = await startServer({ name: 'crash-survivor', env: { ...backend.env, ...UNLIMITED_RATE } });
    started.push(survivor);
  });
  afterAll(async () => {
    await Promise.all(started.map((s) => s.stop()));
    await backend?.dispose();
  });

  it('a process killed while the engine works: the other process refunds the orphan and the retry with the same key completes once', async () => {
    const victim = await startServer({ name: 'crash-victim', env: { ...backend.env, ...UNLIMITED_RATE, ...SLOW_ENGINE } });
    started.push(victim);
    const { session, key } = await customer(survivor.baseUrl, { tag: 'crashpg', buy: ['lite'] });
    const before = await accountLedger(backend.db, session.email);
    const idempotencyKey = `crash-${randomUUID()}`;
    const body = pvsBody(tiny, 'crash-tiny', { x: 16, y: 16 });
    const send = (server: ServerProcess) => () =>
      request(server.baseUrl, '/api/v1/pvs', { json: body, bearer: key, headers: { 'idempotency-key': idempotencyKey } });

    const lost = inFlight(send(victim));
    const orphanId = await waitForAttemptState(backend.db, session.email, 'charged');
    victim.kill('SIGKILL');
    expect((await victim.exited).signal).toBe('SIGKILL');
    expect(await lost, 'the client of the killed process sees a broken connection').toBeInstanceOf(Error);

    // Right after the crash the key is still held: come back later, never a second charge.
    const immediate = await send(survivor)();
    expect(immediate.status, immediate.text).toBe(409);
    expect(immediate.headers.get('retry-after')).toMatch(/^\d+$/);

    const { final } = await untilSettled(send(survivor), { maxWaitMs: RECOVERY_WAIT_MS });
    expect(final.status, final.text).toBe(200);
    const replay = await send(survivor)();
    expect(replay.status).toBe(200);
    expect(replay.text).toBe(final.text);
    await expectRecoveredWithOneNetCharge(backend.db, session.email, before, orphanId);
  });
});

describe('crash safety on the SQLite default (kill -9, restart on the same data directory)', () => {
  let backend: Backend;
  const started: ServerProcess[] = [];

  beforeAll(async () => {
    backend = await createBackend('sqlite', 'crash');
  });
  afterEach(async () => {
    await Promise.all(started.splice(0).map((s) => s.stop()));
  });
  afterAll(async () => {
    await backend?.dispose();
  });

  it('the charge of a killed request survives the kill, and after restart the orphan is refunded and the retry completes once', async () => {
    const victim = await startServer({ name: 'sqlite-victim', env: { ...backend.env, ...UNLIMITED_RATE, ...SLOW_ENGINE } });
    started.push(victim);
    const { session, key } = await customer(victim.baseUrl, { tag: 'crashsqlite', buy: ['lite'] });
    const before = await accountLedger(backend.db, session.email);
    const idempotencyKey = `crash-sqlite-${randomUUID()}`;
    const body = pvsBody(tiny, 'crash-sqlite', { x: 16, y: 16 });
    const lost = inFlight(() => request(victim.baseUrl, '/api/v1/pvs', { json: body, bearer: key, headers: { 'idempotency-key': idempotencyKey } }));
    const orphanId = await waitForAttemptState(backend.db, session.email, 'charged');
    victim.kill('SIGKILL');
    await victim.exited;
    expect(await lost).toBeInstanceOf(Error);
    await backend.db.close(); // reopen after the writer died, as a new reader
    // Read before any process starts on the file: the restarted server's recovery may refund the
    // orphan as soon as it is up, and a refund already made would hide whether the charge survived.
    expect((await accountLedger(backend.db, session.email)).balance, 'the charge committed before the kill is still there').toBe(before.balance - 1);

    const reborn = await startServer({ name: 'sqlite-reborn', env: { ...backend.env, ...UNLIMITED_RATE }, port: victim.port });
    started.push(reborn);
    const send = () => request(reborn.baseUrl, '/api/v1/pvs', { json: body, bearer: key, headers: { 'idempotency-key': idempotencyKey } });
    const { final } = await untilSettled(send, { maxWaitMs: RECOVERY_WAIT_MS });
    expect(final.status, final.text).toBe(200);
    expect((await send()).text).toBe(final.text);
    await expectRecoveredWithOneNetCharge(backend.db, session.email, before, orphanId);
  });

  it('kill -9 under 12 concurrent paid requests leaves an intact SQLite file and a consistent ledger', async () => {
    const victim = await startServer({ name: 'sqlite-load-victim', env: { ...backend.env, ...UNLIMITED_RATE } });
    started.push(victim);
    const { session, key } = await customer(victim.baseUrl, { tag: 'crashload', buy: ['lite'] });
    const load = Array.from({ length: 12 }, (_, i) =>
      inFlight(() =>
        request(victim.baseUrl, '/api/v1/pvs', {
          json: pvsBody(tiny, 'crash-load', { x: 8 + i, y: 16 }),
          bearer: key,
          headers: { 'idempotency-key': `load-${i}-${randomUUID()}` },
        }),
      ),
    );
    await waitForAttemptState(backend.db, session.email, 'charged');
    victim.kill('SIGKILL');
    await victim.exited;
    const outcomes = await Promise.all(load);
    await backend.db.close();

    const file = path.join(backend.env.DATA_DIR, 'maskwright.sqlite');
    const check = new Database(file, { readonly: true });
    try {
      expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      check.close();
    }
    const reborn = await startServer({ name: 'sqlite-load-reborn', env: { ...backend.env, ...UNLIMITED_RATE } });
    started.push(reborn);
    const settled = await (async () => {
      const deadline = Date.now() + RECOVERY_WAIT_MS;
      while (Date.now() < deadline && (await unsettledAttempts(backend.db)).length > 0) await sleep(250);
      return unsettledAttempts(backend.db);
    })();
    expect(settled).toEqual([]);
    await assertLedgerConsistent(backend.db);
    const ledger = await accountLedger(backend.db, session.email);
    const answered200 = outcomes.filter((o) => !(o instanceof Error) && o.status === 200).length;
    // Requests answered 200 before the kill keep their charge; every other charge was refunded.
    expect(ledger.charges - ledger.refunds).toBe(answered200);
  });
});

describe('graceful shutdown (SIGTERM drains in-flight requests)', () => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await createBackend('sqlite', 'drain');
  });
  afterAll(async () => {
    await backend?.dispose();
  });

  it('requests in flight when SIGTERM arrives complete with 200 and are charged once; the process then exits 0', async () => {
    const server = await startServer({
      name: 'drain',
      env: { ...backend.env, ...UNLIMITED_RATE, [KNOB.faultInjection]: 'engine_delay_ms=3000', INFERENCE_WORKERS: '1', INFERENCE_QUEUE: '8' },
    });
    try {
      const { session, key } = await customer(server.baseUrl, { tag: 'drain', buy: ['lite'] });
      const before = await accountLedger(backend.db, session.email);
      const pending = Array.from({ length: 3 }, (_, i) =>
        inFlight(() =>
          request(server.baseUrl, '/api/v1/pvs', {
            json: pvsBody(tiny, 'drain', { x: 10 + i, y: 16 }),
            bearer: key,
            headers: { 'idempotency-key': `drain-${i}-${randomUUID()}` },
          }),
        ),
      );
      await waitForAttemptState(backend.db, session.email, 'charged');
      const signalledAt = Date.now();
      server.kill('SIGTERM');
      const outcomes = await Promise.all(pending);
      const answeredMs = Date.now() - signalledAt;
      await server.exited;
      console.info(`[drain] in-flight answered ${answeredMs} ms after SIGTERM, process exited after ${Date.now() - signalledAt} ms`);
      for (const outcome of outcomes) {
        expect(outcome, 'in-flight request answered, not cut off').not.toBeInstanceOf(Error);
        const response = outcome as ApiResponse;
        expect(response.status, response.text).toBe(200);
        // Without this the idle keep-alive socket holds the shutdown open for keepAliveTimeout (72 s).
        expect(response.headers.get('connection'), 'answers sent while draining close their connection').toBe('close');
      }
      const exit = await server.exited;
      expect(exit.code, server.output().slice(-2_000)).toBe(0);
      const after = await accountLedger(backend.db, session.email);
      expect(after.charges - before.charges).toBe(3);
      expect(after.refunds - before.refunds).toBe(0);
      expect(await unsettledAttempts(backend.db)).toEqual([]);
      await assertLedgerConsistent(backend.db);
    } finally {
      await server.stop();
    }
  });
});

describe('inference worker faults do not take the process down', () => {
  let backend: Backend;
  const started: ServerProcess[] = [];
  beforeAll(async () => {
    backend = await createBackend('sqlite', 'workers');
  });
  afterAll(async () => {
    await Promise.all(started.map((s) => s.stop()));
    await backend?.dispose();
  });

  it('jobs that exceed INFERENCE_TIMEOUT_MS are answered 500 and refunded, and the process keeps serving', async () => {
    // 150 ms: shorter than one encoder run on a real photo, so every job times out while onnxruntime
    // is working and the pool replaces a busy worker each time (the situation of a stuck job).
    const server = await startServer({ name: 'timeouts', env: { ...backend.env, ...UNLIMITED_RATE, INFERENCE_TIMEOUT_MS: '150' } });
    started.push(server);
    const { session, key } = await customer(server.baseUrl, { tag: 'timeouts' });
    const photo = sampleImage(SAMPLE_FILE).base64;
    let timeouts = 0;
    for (let i = 0; i < 5; i++) {
      const outcome = await inFlight(() =>
        request(server.baseUrl, '/api/v1/pvs', { json: pvsBody(photo, `timeout-${i}`), bearer: key, headers: { 'idempotency-key': `timeout-${i}` } }),
      );
      expect(outcome, `request ${i} lost; server output: ${server.output().slice(-400)}`).not.toBeInstanceOf(Error);
      const response = outcome as ApiResponse;
      expect([200, 500], response.text).toContain(response.status);
      if (response.status === 500) {
        expect(response.body?.type).toMatch(/engine-failure$/);
        timeouts++;
      }
    }
    expect(timeouts, 'at least one job timed out (otherwise this test proves nothing)').toBeGreaterThan(0);
    expect(server.isRunning(), server.output().slice(-600)).toBe(true);
    expect((await request(server.baseUrl, '/api/v1/health')).status).toBe(200);
    const deadline = Date.now() + 30_000;
    while ((await unsettledAttempts(backend.db)).length > 0 && Date.now() < deadline) await sleep(250);
    const successes = 5 - timeouts;
    expect((await accountLedger(backend.db, session.email)).balance, 'failed jobs refunded, successes charged').toBe(5 - successes);
    await assertLedgerConsistent(backend.db);
  });

  it('SIGTERM while the inference worker is still loading its model exits cleanly (code 0)', async () => {
    const server = await startServer({ name: 'early-sigterm', env: { ...backend.env } });
    started.push(server);
    const health = await request(server.baseUrl, '/api/v1/health');
    expect(health.body?.inference, 'the worker is still starting (otherwise this test proves nothing)').toMatch(/starting/);
    server.kill('SIGTERM');
    const exit = await server.exited;
    expect(exit, server.output().slice(-600)).toEqual({ code: 0, signal: null });
  });
});
