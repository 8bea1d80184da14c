/**
 * Issue 38, item 4, with real OS processes: two server processes (`src/server/main.ts`, each also a
 * job worker) on one PostgreSQL schema share a text job through pg-boss, and one is killed with
 * SIGKILL while it holds a charged image. The other finishes the job: every image labelled once and
 * charged at most once, none skipped, the dead process's charge refunded, the ledger equal to the
 * balances. The in-process API tests cannot show this: their "two servers" share one process,
 * which is never killed. Skipped without TEST_DATABASE_URL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import pg from 'pg';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../contract/jobs';
import type { Project } from '../contract/projects';
import { connectDatabase, type Db } from './db/connect';
import { ledgerMismatches } from './domain/ledger';
import { MALLOC_SETTING_ENV } from './mallocSetting';
import { SAMPLES_DIR, TEST_DATABASE_URL } from '../../test/support/server/harness';

const repoRoot = resolve(import.meta.dirname, '../..');
// At most the 5 credits of a new account, so the job never pauses.
const IMAGES = 4;
// Long enough that a live but loaded process is not presumed dead mid-image; short, so the test is.
const TASK_TIMEOUT_SECONDS = 20;

async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const probe = createServer();
    probe.on('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => ok(port));
    });
  });
}

interface ServerProcess {
  child: ChildProcess;
  url: string;
}

async function startServerProcess(schema: string): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(repoRoot, 'src/server/main.ts')], {
    cwd: repoRoot,
    env: {
      ...process.env,
      DATABASE_URL: TEST_DATABASE_URL,
      DATABASE_SCHEMA: schema,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      STRIPE_SECRET_KEY: '',
      INFERENCE_WORKERS: '1',
      INFERENCE_THREADS: '1',
      JOB_CONCURRENCY: '1',
      JOB_TASK_TIMEOUT_SECONDS: String(TASK_TIMEOUT_SECONDS),
      JOB_MAINTENANCE_SECONDS: '1',
      ...MALLOC_SETTING_ENV,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 150_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server process exited (${child.exitCode}) before it answered`);
    if (await fetch(`${url}/api/v1/health`).then((r) => r.ok, () => false)) return { child, url };
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('the server process did not answer in time');
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

describe.skipIf(!TEST_DATABASE_URL)('auto-label jobs across OS processes (PostgreSQL)', () => {
  const schema = `jobs_kill_${Date.now().toString(36)}`;
  let admin: pg.Client;
  let doomed: ServerProcess;
  let survivor: ServerProcess;
  let db: Db;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA "${schema}"`);
    // One after the other: both would migrate the fresh schema at once otherwise.
    doomed = await startServerProcess(schema);
    survivor = await startServerProcess(schema);
    db = await connectDatabase({ dialect: 'postgres', url: TEST_DATABASE_URL!, schema });
  }, 360_000);

  afterAll(async () => {
    for (const server of [doomed, survivor]) if (server) await stopProcess(server.child);
    await db?.close();
    await admin?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin?.end();
  });

  it('a server killed with SIGKILL while it holds a charged image: the other labels it, nothing twice, nothing skipped, no credit lost', async () => {
    const headers = { 'content-type': 'application/json' };
    const signup = await fetch(`${survivor.url}/api/v1/auth/signup`, { method: 'POST', headers, body: JSON.stringify({ email: `kill-${schema}@example.test`, password: 'kill-test-password-1' }) });
    expect(signup.status).toBe(201);
    const cookies = signup.headers.getSetCookie().map((c) => c.split(';')[0]);
    const csrf = cookies.find((c) => c.startsWith('mw_csrf='))!.slice('mw_csrf='.length);
    const keyed = await fetch(`${survivor.url}/api/v1/api-keys`, { method: 'POST', headers: { cookie: cookies.join('; '), 'x-csrf-token': csrf } });
    const auth = { ...headers, authorization: `Bearer ${((await keyed.json()) as { key: string }).key}` };
    const project = (await (await fetch(`${survivor.url}/api/v1/projects`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'Kill' }) })).json()) as Project;
    for (let i = 0; i < IMAGES; i++) {
      // Each its own file (the project keeps one copy of identical bytes): the cat at a width of its own.
      const bytes = await sharp(resolve(SAMPLES_DIR, 'chelsea.png'))
        .resize({ width: 320 + 16 * i })
        .jpeg()
        .toBuffer();
      const added = await fetch(`${survivor.url}/api/v1/projects/${project.id}/images`, { method: 'POST', headers: auth, body: JSON.stringify({ name: `cat-${i}.jpg`, image: bytes.toString('base64') }) });
      expect(added.status).toBe(201);
    }
    const balanceBefore = Number((await db.kysely.selectFrom('accounts').select('balance').executeTakeFirstOrThrow()).balance);

    const job = (await (await fetch(`${survivor.url}/api/v1/projects/${project.id}/jobs`, { method: 'POST', headers: auth, body: JSON.stringify({ kind: 'text', prompts: ['cat'] }) })).json()) as Job;
    const doomedInstance = await db.kysely.selectFrom('server_instances').select('id').where('pid', '=', doomed.child.pid!).executeTakeFirstOrThrow();
    // The hard case: killed between its charge and its write.
    const deadline = Date.now() + 120_000;
    let inHand: { idempotency_key: string | null } | undefined;
    while (!inHand && Date.now() < deadline) {
      inHand = await db.kysely.selectFrom('attempts').select('idempotency_key').where('owner_instance', '=', doomedInstance.id).where('state', '=', 'charged').executeTakeFirst();
      if (!inHand) await new Promise((r) => setTimeout(r, 20));
    }
    expect(inHand, 'the doomed server never held a charged image').toBeDefined();
    doomed.child.kill('SIGKILL');

    let last = job;
    const finishBy = Date.now() + 240_000;
    while (last.state !== 'done' && last.state !== 'failed' && Date.now() < finishBy) {
      await new Promise((r) => setTimeout(r, 500));
      last = (await (await fetch(`${survivor.url}/api/v1/projects/${project.id}/jobs/${job.id}`, { headers: auth })).json()) as Job;
    }
    expect(last).toMatchObject({ state: 'done', total: IMAGES, done: IMAGES, failed: 0 });
    // Let the survivor's recovery refund the dead process's charge if it has not yet.
    const refundBy = Date.now() + 60_000;
    const attemptsOf = () => db.kysely.selectFrom('attempts').select(['idempotency_key', 'state']).where('idempotency_key', 'like', `job.${job.id}.%`).execute();
    while ((await attemptsOf()).some((a) => a.state === 'charged' || a.state === 'refund_pending') && Date.now() < refundBy) await new Promise((r) => setTimeout(r, 500));

    const attempts = await attemptsOf();
    // The image in hand: its dead call refunded, then run once more by the survivor.
    expect(attempts.filter((a) => a.idempotency_key === inHand!.idempotency_key && a.state === 'refunded').length).toBeGreaterThanOrEqual(1);
    const keptPerImage = new Map<string, number>();
    for (const a of attempts) if (a.state === 'completed') keptPerImage.set(a.idempotency_key!, (keptPerImage.get(a.idempotency_key!) ?? 0) + 1);
    expect([...keptPerImage.values()].every((n) => n === 1)).toBe(true);
    expect(attempts.every((a) => a.state === 'completed' || a.state === 'refunded')).toBe(true);
    const balanceAfter = Number((await db.kysely.selectFrom('accounts').select('balance').executeTakeFirstOrThrow()).balance);
    expect(balanceBefore - balanceAfter).toBe(keptPerImage.size);

    const images = await db.kysely.selectFrom('job_images').select(['image_id', 'state', 'proposed']).where('job_id', '=', job.id).execute();
    expect(images.map((i) => i.state)).toEqual(Array(IMAGES).fill('done'));
    // Labelled once: each image's proposals written by one write of the job, its revision 1.
    const stored = await db.kysely.selectFrom('project_images').select(['id', 'revision', 'objects']).where('project_id', '=', project.id).execute();
    for (const image of stored) {
      const proposals = (JSON.parse(image.objects) as Array<{ proposedBy?: string }>).filter((o) => o.proposedBy);
      expect(image.revision).toBe(proposals.length ? 1 : 0);
      expect(proposals.length).toBe(images.find((i) => i.image_id === image.id)!.proposed);
    }
    expect(await ledgerMismatches(db.kysely)).toEqual([]);
  }, 420_000);
});
