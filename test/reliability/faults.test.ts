/**
 * Injected faults under concurrent load: FAULT_INJECTION engine=0.3,refund=0.25 (30 % of engine calls
 * and 25 % of refund attempts fail). Over SQLite (one process) and PostgreSQL (two processes sharing
 * the database and the refund loop).
 *
 * Proves: every failed attempt is charged once and refunded exactly once (matched response by response
 * through the request id); successes keep exactly one charge; refunds that failed inline are applied
 * by the background loop, so nothing is left pending; the `refunded` member and X-Service-Refunded
 * header tell the truth at the moment of the answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { createBackend, type Backend, type BackendKind } from './harness/backends';
import { request, sleep, type ApiResponse } from './harness/http';
import { assertLedgerConsistent, unsettledAttempts } from './harness/ledger';
import { KNOB, pvsBody, UNLIMITED_RATE } from './harness/knobs';
import { postgresForSuite } from './harness/postgres';
import { startServer, type ServerProcess } from './harness/serverProcess';
import { customer, untilSettled } from './harness/service';
import { tinyPng } from './harness/hostileImages';

const backends: BackendKind[] = (await postgresForSuite('faults')) ? ['sqlite', 'postgres'] : ['sqlite'];
const tiny = tinyPng(32).toString('base64');
const FAULTS = { [KNOB.faultInjection]: 'engine=0.3,refund=0.25' };
const REQUESTS = 90;
const ACCOUNTS = 3;

describe.each(backends)('faults under load (%s)', (kind) => {
  let backend: Backend;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    backend = await createBackend(kind, 'faults');
    const processes = kind === 'postgres' ? 2 : 1;
    for (let i = 0; i < processes; i++) {
      servers.push(await startServer({ name: `faults-${kind}-${i}`, env: { ...backend.env, ...UNLIMITED_RATE, ...FAULTS } }));
    }
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await backend?.dispose();
  });

  it(`${REQUESTS} concurrent paid requests: every failed attempt is refunded exactly once, nothing pending after the loop`, async () => {
    const customers = await Promise.all(Array.from({ length: ACCOUNTS }, (_, i) => customer(servers[0].baseUrl, { tag: `faults${i}`, buy: ['lite'] })));
    const responses: ApiResponse[] = await Promise.all(
      Array.from({ length: REQUESTS }, async (_, i) => {
        const { key } = customers[i % ACCOUNTS];
        const server = servers[i % servers.length];
        const { final } = await untilSettled(
          () =>
            request(server.baseUrl, '/api/v1/pvs', {
              json: pvsBody(tiny, `faults-${i % ACCOUNTS}`, { x: 8 + (i % 16), y: 16 }),
              bearer: key,
              headers: { 'idempotency-key': `faults-${i}-${randomUUID()}` },
            }),
          { retryOn: (r) => r.status === 503, maxWaitMs: 120_000 },
        );
        return final;
      }),
    );

    const requestIdOf = (r: ApiResponse) => r.headers.get('x-service-request-id') ?? '';
    const successes = responses.filter((r) => r.status === 200);
    const failures = responses.filter((r) => r.status !== 200);
    for (const r of failures) {
      expect(r.status, r.text).toBe(500);
      expect(r.body?.type).toMatch(/engine-failure$/);
      expect(r.body?.requestId).toBe(requestIdOf(r));
      // The header and the member agree, and both describe the refund at answer time.
      expect(r.headers.get('x-service-refunded') === 'true').toBe(r.body?.refunded === true);
    }
    const refundedInline = failures.filter((r) => r.body?.refunded === true).length;
    console.info(`[faults ${kind}] ${successes.length} ok, ${failures.length} failed (${refundedInline} refunded inline, ${failures.length - refundedInline} left to the loop)`);
    expect(failures.length, 'engine=0.3 over 90 calls produced failures').toBeGreaterThan(0);
    expect(successes.length).toBeGreaterThan(0);
    // refund=0.25 must actually send refunds down the retry path: with ≥ 20 failures, all of them
    // refunded inline has a probability of 0.75^20 ≈ 0.3 %, so this checks the knob, not luck.
    if (failures.length >= 20) expect(failures.length - refundedInline, 'refunds left to the background loop').toBeGreaterThan(0);

    // The retry loop drains every pending refund.
    const deadline = Date.now() + 60_000;
    while ((await unsettledAttempts(backend.db)).length > 0 && Date.now() < deadline) await sleep(250);
    expect(await unsettledAttempts(backend.db)).toEqual([]);

    // Response by response: find its attempt and its ledger entries.
    const entries = await backend.db.all<{ reference: string; kind: string; amount: number }>(
      `SELECT reference, kind, amount FROM ledger_entries WHERE kind IN ('charge', 'refund')`,
    );
    const attempts = await backend.db.all<{ id: string; request_id: string; state: string; refund_attempts: number }>(
      `SELECT id, request_id, state, refund_attempts FROM attempts`,
    );
    const attemptByRequest = new Map(attempts.map((a) => [a.request_id, a]));
    const countOf = (reference: string, entryKind: string) => entries.filter((e) => e.reference === reference && e.kind === entryKind).length;
    for (const r of responses) {
      const attempt = attemptByRequest.get(requestIdOf(r));
      expect(attempt, `attempt for request ${requestIdOf(r)}`).toBeDefined();
      // Owed a refund: a failure, or a 200 whose mask set is empty (then X-Service-Refunded once done).
      const empty = r.status === 200 && (r.body?.prompts ?? []).every((p: { predictions: unknown[] }) => p.predictions.length === 0);
      if (r.headers.get('x-service-refunded') === 'true') expect(r.status !== 200 || empty).toBe(true);
      const refunded = r.status !== 200 || empty;
      expect(countOf(attempt!.id, 'charge'), `charges of ${attempt!.id}`).toBe(1);
      expect(countOf(attempt!.id, 'refund'), `refunds of ${attempt!.id} (${r.status})`).toBe(refunded ? 1 : 0);
      expect(attempt!.state).toBe(refunded ? 'refunded' : 'completed');
    }
    const retriedRefunds = attempts.filter((a) => Number(a.refund_attempts) > 1).length;
    console.info(`[faults ${kind}] refunds that needed the retry loop more than once: ${retriedRefunds}`);

    for (const { session } of customers) {
      const [row] = await backend.db.all<{ balance: number }>(`SELECT balance FROM accounts WHERE email = '${session.email}'`);
      const kept = responses.filter(
        (r, i) => customers[i % ACCOUNTS].session === session && r.status === 200 && r.body.prompts.some((p: { predictions: unknown[] }) => p.predictions.length > 0),
      ).length;
      expect(Number(row.balance)).toBe(305 - kept);
    }
    await assertLedgerConsistent(backend.db);
    for (const server of servers) expect(server.isRunning()).toBe(true);
  });
});
