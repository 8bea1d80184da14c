/**
 * `npm run bench:jobs -- --images 200`: auto-label jobs (issue 38) on PostgreSQL through pg-boss.
 * One HTTP server process that only queues (JOB_CONCURRENCY=0) and job worker processes
 * (`npm run worker`: one inference worker of one thread, one image at a time each), all on a fresh
 * schema of BENCH_DATABASE_URL (default TEST_DATABASE_URL). A project of --images distinct photos
 * (800 px JPEGs made from the samples, a mark in a corner makes each file its own) is labelled
 * with segment everything three times, each a new job:
 *   1. one worker process,
 *   2. two worker processes,
 *   3. two worker processes, one killed with SIGKILL when half the images are done (its images
 *      are handed to the other after JOB_TASK_TIMEOUT_SECONDS).
 * For each run: images per second (from the POST to the job's `done`), and the checks that matter
 * after a kill: images labelled twice (more than one write of the job on an image, or more than
 * one charge kept for an image), images skipped (not done when the job is), and credits lost or
 * doubled (the account's ledger against its balance, and the credits spent against the images
 * charged). And the CPU seconds each worker process spent per image (from /proc, all its threads):
 * the load of a shared machine stretches the wall time, not the work, so the CPU per image with
 * one and with two workers shows whether two workers add work (contention) or only share it.
 * Prints a table and writes bench/results/jobsBench.json.
 *
 *   npx tsx bench/jobsBench.ts [--images 200] [--kind everything|text] [--prompts cat,dog] [--task-timeout 60] [--out FILE]
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import sharp from 'sharp';
import type { Job } from '../src/contract/jobs';
import { MALLOC_SETTING_ENV } from '../src/server/mallocSetting';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const log = (line: string) => void process.stderr.write(`[bench:jobs] ${new Date().toISOString().slice(11, 19)} ${line}\n`);
const { values: args } = parseArgs({
  options: {
    images: { type: 'string', default: '200' },
    kind: { type: 'string', default: 'everything' },
    prompts: { type: 'string', default: 'cat' },
    'task-timeout': { type: 'string', default: '60' },
    out: { type: 'string', default: join(repoRoot, 'bench/results/jobsBench.json') },
  },
});
const IMAGES = Number(args.images);
const TASK_TIMEOUT_SECONDS = Number(args['task-timeout']);
// A learned job needs a taught model saved on the project first; the bench does not teach one.
if (args.kind !== 'everything' && args.kind !== 'text') throw new Error(`--kind ${args.kind}: the bench runs everything or text jobs`);
const JOB_REQUEST = args.kind === 'text' ? { kind: 'text', prompts: args.prompts!.split(',') } : { kind: 'everything' };
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
if (!DATABASE_URL) throw new Error('bench:jobs needs PostgreSQL: set BENCH_DATABASE_URL (or TEST_DATABASE_URL)');
const SCHEMA = `bench_jobs_${Date.now().toString(36)}`;

async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const probe = createServer();
    probe.on('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const port = (probe.address() as { port: number }).port;
      probe.close(() => ok(port));
    });
  });
}

const commonEnv = {
  ...process.env,
  DATABASE_URL,
  DATABASE_SCHEMA: SCHEMA,
  HOST: '127.0.0.1',
  RATE_LIMIT_PER_SECOND: '1000000',
  LOG_LEVEL: 'warn',
  STRIPE_SECRET_KEY: '',
  // A killed worker's task is handed to another this soon after it started (longer than an image
  // takes, or a live worker's task would be run twice); its charge is refunded once its heartbeat
  // is stale (domain/recovery.ts), and the image is charged anew by the worker that runs it.
  JOB_TASK_TIMEOUT_SECONDS: String(TASK_TIMEOUT_SECONDS),
  JOB_MAINTENANCE_SECONDS: '2',
  REFUND_BUDGET: '1000000',
  ...MALLOC_SETTING_ENV,
};

function spawnTsx(file: string, env: Record<string, string | undefined>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', join(repoRoot, file)], { cwd: repoRoot, env: { ...commonEnv, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
}

const IDLE_WINDOW_MS = 5000;
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

/** User + system CPU seconds of a process, all its threads (ONNX, libuv, sharp's) together; 0 once it is gone. */
function cpuSeconds(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name, which may itself hold spaces: utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

async function startApi(): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  // Queues only; its own inference pool is one worker that no job uses.
  const child = spawnTsx('src/server/main.ts', { PORT: String(port), JOB_CONCURRENCY: '0', INFERENCE_WORKERS: '1', INFERENCE_THREADS: '1' });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    const ok = await fetch(`${url}/api/v1/health`).then((r) => r.status === 200, () => false);
    if (ok) return { url, child };
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('the API server did not start');
}

/** A worker process, resolved once it has loaded its models and takes tasks: a job is timed, not a start-up. */
async function startWorker(): Promise<ChildProcess> {
  const child = spawnTsx('src/server/workerMain.ts', { JOB_CONCURRENCY: '1', INFERENCE_WORKERS: '1', INFERENCE_THREADS: '1' });
  await new Promise<void>((ready, fail) => {
    let seen = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('job worker started')) ready();
    });
    child.once('exit', (code) => fail(new Error(`a worker exited (${code}) before it started`)));
  });
  child.stdout!.resume();
  return child;
}

async function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill(signal);
  await exited;
}

interface RunResult {
  name: string;
  workers: number;
  killed: boolean;
  images: number;
  seconds: number;
  imagesPerSecond: number;
  done: number;
  failed: number;
  labelledTwice: number;
  skipped: number;
  creditsSpent: number;
  imagesCharged: number;
  creditsLostOrDoubled: number;
  ledgerMismatches: number;
  /** CPU seconds of the worker processes together (the killed one until its kill), per image done. */
  workerCpuPerImage: number;
  /** Worker CPU seconds over (wall seconds × workers): how much of the run the workers were on a core. */
  workerBusy: number;
  /** CPU seconds of the API server process (queueing, the bench's polls) over the run. */
  apiCpuSeconds: number;
  /** CPU seconds per second of one idle worker process, measured before the job. */
  idleCpuPerSecond: number;
  /** OS threads of a worker process (ONNX, libuv, sharp, V8). */
  threads: number;
  load: { start: number; end: number };
  /** Why images failed (problem slugs of their calls), when any did. */
  failures: Record<string, number>;
}

async function main() {
  log(`schema ${SCHEMA}, ${IMAGES} images, ${cpus().length} cores, load ${loadavg()[0].toFixed(2)}`);
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA "${SCHEMA}"`);
  const db = new pg.Pool({ connectionString: DATABASE_URL, options: `-c search_path=${SCHEMA}`, max: 2 });
  const api = await startApi();
  const children: ChildProcess[] = [api.child];
  try {
    const headers = { 'content-type': 'application/json' };
    const signup = await fetch(`${api.url}/api/v1/auth/signup`, { method: 'POST', headers, body: JSON.stringify({ email: `bench-${SCHEMA}@example.test`, password: 'bench-password-1' }) });
    const cookies = signup.headers.getSetCookie().map((c) => c.split(';')[0]);
    const csrf = cookies.find((c) => c.startsWith('mw_csrf='))!.slice('mw_csrf='.length);
    const session = { cookie: cookies.join('; '), 'x-csrf-token': csrf };
    const key = ((await (await fetch(`${api.url}/api/v1/api-keys`, { method: 'POST', headers: session })).json()) as { key: string }).key;
    const auth = { ...headers, authorization: `Bearer ${key}` };
    for (let i = 0; i < Math.ceil((IMAGES * 3) / 1600) + 1; i++) {
      const bought = await fetch(`${api.url}/api/v1/credit-purchases`, { method: 'POST', headers: auth, body: JSON.stringify({ packageId: 'pro' }) });
      if (bought.status >= 300) throw new Error(`credit purchase: ${bought.status} ${await bought.text()}`);
    }
    const project = (await (await fetch(`${api.url}/api/v1/projects`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'Bench' }) })).json()) as { id: string };
    const samples = ['chelsea.png', 'coffee.png', 'astronaut.png', 'rocket.jpg'].map((name) => readFileSync(join(repoRoot, 'public/samples', name)));
    log(`adding ${IMAGES} photos…`);
    for (let i = 0; i < IMAGES; i++) {
      const mark = Buffer.from(`<svg width="24" height="12"><text x="0" y="10" font-size="10">${i}</text></svg>`);
      const bytes = await sharp(samples[i % samples.length]).resize({ width: 800 }).composite([{ input: mark, left: 0, top: 0 }]).jpeg({ quality: 85 }).toBuffer();
      const added = await fetch(`${api.url}/api/v1/projects/${project.id}/images`, { method: 'POST', headers: auth, body: JSON.stringify({ name: `photo-${i}.jpg`, image: bytes.toString('base64') }) });
      if (added.status !== 201) throw new Error(`adding photo ${i}: ${added.status} ${await added.text()}`);
    }

    const runs: RunResult[] = [];
    for (const plan of [
      { name: '1 worker process', workers: 1, kill: false },
      { name: '2 worker processes', workers: 2, kill: false },
      { name: '2 worker processes, one killed (SIGKILL) halfway', workers: 2, kill: true },
    ]) {
      const workers = await Promise.all(Array.from({ length: plan.workers }, startWorker));
      children.push(...workers);
      // What a worker costs while it has nothing to do (queue polls, heartbeats, recovery sweeps),
      // measured after its first seconds, which still hold the start's warm-up.
      await new Promise((r) => setTimeout(r, IDLE_WINDOW_MS));
      const idleStart = workers.map((w) => cpuSeconds(w.pid));
      await new Promise((r) => setTimeout(r, IDLE_WINDOW_MS));
      const idleCpuPerSecond = workers.reduce((sum, w, i) => sum + cpuSeconds(w.pid) - idleStart[i], 0) / plan.workers / (IDLE_WINDOW_MS / 1000);
      const threads = readdirSync(`/proc/${workers[0].pid}/task`).length;
      const loadStart = loadavg()[0];
      const cpuStart = workers.map((w) => cpuSeconds(w.pid));
      const cpuAtEnd = [...cpuStart];
      const apiCpuStart = cpuSeconds(api.child.pid);
      const balanceBefore = Number((await db.query('select balance from accounts')).rows[0].balance);
      const started = performance.now();
      const job = (await (await fetch(`${api.url}/api/v1/projects/${project.id}/jobs`, { method: 'POST', headers: auth, body: JSON.stringify(JOB_REQUEST) })).json()) as Job;
      let killed = false;
      let last: Job = job;
      let lastLogged = 0;
      for (;;) {
        last = (await (await fetch(`${api.url}/api/v1/projects/${project.id}/jobs/${job.id}`, { headers: auth })).json()) as Job;
        if (last.state === 'done' || last.state === 'failed' || last.state === 'cancelled') break;
        if (plan.kill && !killed && last.done + last.failed >= IMAGES / 2) {
          log(`${plan.name}: ${last.done} done, SIGKILL to worker pid ${workers[0].pid}`);
          cpuAtEnd[0] = cpuSeconds(workers[0].pid);
          workers[0].kill('SIGKILL');
          killed = true;
        }
        if (performance.now() - lastLogged > 15_000) {
          log(`${plan.name}: ${last.done + last.failed}/${last.total} (${last.state})`);
          lastLogged = performance.now();
        }
        await new Promise((r) => setTimeout(r, 250));
      }
      const seconds = (performance.now() - started) / 1000;
      workers.forEach((w, i) => {
        if (w.exitCode === null && w.signalCode === null) cpuAtEnd[i] = cpuSeconds(w.pid);
      });
      const workerCpu = cpuAtEnd.reduce((sum, end, i) => sum + end - cpuStart[i], 0);
      const apiCpuSeconds = cpuSeconds(api.child.pid) - apiCpuStart;
      const loadEnd = loadavg()[0];
      // Let the recovery of the dead worker's charge settle before the ledger is read.
      if (plan.kill) await new Promise((r) => setTimeout(r, (TASK_TIMEOUT_SECONDS + 15) * 1000));
      const writes = await db.query(
        `select payload::json->>'imageId' as image, count(*)::int as n from project_events where project_id = $1 and payload::json->>'type' = 'annotations' and id > coalesce((select min(id) from project_events where payload::json->>'jobId' = $2), 0) group by 1`,
        [project.id, job.id],
      );
      const charges = await db.query(
        `select idempotency_key, count(*) filter (where state = 'completed')::int as kept from attempts where idempotency_key like $1 group by 1`,
        [`job.${job.id}.%`],
      );
      const pending = await db.query(`select count(*)::int as n from job_images where job_id = $1 and state not in ('done', 'failed')`, [job.id]);
      const mismatches = await db.query(
        `select a.id from accounts a left join (select account_id, sum(amount) as total from ledger_entries group by account_id) l on l.account_id = a.id where coalesce(l.total, 0) <> a.balance`,
      );
      const failures = await db.query(`select coalesce(failure, state) as why, count(*)::int as n from attempts where idempotency_key like $1 and state <> 'completed' group by 1`, [`job.${job.id}.%`]);
      const balanceAfter = Number((await db.query('select balance from accounts')).rows[0].balance);
      const imagesCharged = charges.rows.filter((r) => r.kept > 0).length;
      const creditsSpent = balanceBefore - balanceAfter;
      const labelledTwice = writes.rows.filter((r) => r.n > 1).length + charges.rows.filter((r) => r.kept > 1).length;
      runs.push({
        name: plan.name,
        workers: plan.workers,
        killed: plan.kill,
        images: last.total,
        seconds,
        imagesPerSecond: last.total / seconds,
        done: last.done,
        failed: last.failed,
        labelledTwice,
        skipped: Number(pending.rows[0].n) + (last.total - last.done - last.failed),
        creditsSpent,
        imagesCharged,
        creditsLostOrDoubled: Math.abs(creditsSpent - imagesCharged),
        workerCpuPerImage: workerCpu / Math.max(1, last.done + last.failed),
        workerBusy: workerCpu / (seconds * plan.workers),
        apiCpuSeconds,
        idleCpuPerSecond,
        threads,
        load: { start: loadStart, end: loadEnd },
        ledgerMismatches: mismatches.rows.length,
        failures: Object.fromEntries(failures.rows.map((r) => [String(r.why).slice(0, 80), r.n])),
      });
      log(`${plan.name}: ${last.state} in ${seconds.toFixed(1)} s`);
      for (const worker of workers) await stop(worker);
    }

    const speedup = runs[1].imagesPerSecond / runs[0].imagesPerSecond;
    const table = [
      '| run | images | s | images/s | done | failed | labelled twice | skipped | credits spent | images charged | credits lost or doubled | ledger ≠ balance | worker CPU s/image | workers busy | API CPU s | load start → end |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...runs.map(
        (r) =>
          `| ${r.name} | ${r.images} | ${r.seconds.toFixed(1)} | ${r.imagesPerSecond.toFixed(3)} | ${r.done} | ${r.failed} | ${r.labelledTwice} | ${r.skipped} | ${r.creditsSpent} | ${r.imagesCharged} | ${r.creditsLostOrDoubled} | ${r.ledgerMismatches} | ${r.workerCpuPerImage.toFixed(2)} | ${(r.workerBusy * 100).toFixed(0)} % | ${r.apiCpuSeconds.toFixed(1)} | ${r.load.start.toFixed(1)} → ${r.load.end.toFixed(1)} |`,
      ),
    ].join('\n');
    console.log(`${JSON.stringify(JOB_REQUEST)} jobs, ${cpus().length} cores\n`);
    console.log(table);
    for (const r of runs) console.log(`${r.name}: an idle worker used ${r.idleCpuPerSecond.toFixed(3)} CPU s/s; ${r.threads} threads per worker process`);
    for (const r of runs) if (Object.keys(r.failures).length) console.log(`${r.name}: calls not kept: ${JSON.stringify(r.failures)}`);
    console.log(`\n2 workers / 1 worker: ${speedup.toFixed(2)}× (target ≥ 1.6× on 2 cores)`);
    // Wall-clock free: one worker's CPU per image against two workers' together. Near 1 means a second
    // worker adds no work of its own, so on two idle cores the rate would double.
    console.log(`worker CPU per image, 2 workers / 1 worker: ${(runs[1].workerCpuPerImage / runs[0].workerCpuPerImage).toFixed(2)}`);
    mkdirSync(dirname(args.out!), { recursive: true });
    writeFileSync(args.out!, JSON.stringify({ date: new Date().toISOString(), cores: cpus().length, load: loadavg(), images: IMAGES, job: JOB_REQUEST, taskTimeoutSeconds: TASK_TIMEOUT_SECONDS, runs, speedup }, null, 2));
    log(`wrote ${args.out}`);
  } finally {
    for (const child of children) await stop(child).catch(() => undefined);
    await db.end();
    await admin.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
    await admin.end();
  }
}

await main();
