/**
 * Live updates (issue 38): how long from one member's write to another member's studio showing
 * it, in Chromium. The built studio (dist/) is served by the bench's own API server process (one
 * origin, SQLite). Alice and Bob are members of one project with one photo; Bob's studio has it
 * open (a fresh browser context, signed in). Each sample: Alice writes the photo's objects with one
 * object's review changed (a PUT with its revision, as her studio's sync does), and the time ends
 * when Bob's page shows the new review in its object list (looked at every 5 ms in the page, with
 * Date.now() on both sides: one machine, one clock).
 *
 * The peer, in the same run: what a member had before the studio followed the event stream — a
 * reload of Bob's page right after the write, until the same review shows (the best case of that
 * behaviour: in practice nobody reloads at the right moment).
 *
 * `--postgres`: two API server processes on one PostgreSQL database (a fresh schema of
 * BENCH_DATABASE_URL, default TEST_DATABASE_URL). Alice writes through server 1; Bob's studio is
 * served by server 2 and follows the stream there, so each event crosses processes by NOTIFY.
 *
 *   npx tsx bench/liveUpdates.ts [--postgres] [--writes 40] [--reloads 8] [--out FILE]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import type { AnnotationObject, ImageAnnotations, Project, ProjectImage } from '../src/contract/projects';
import { percentile, summarize } from './browser/stats';
import { startServerProcess } from './serverProcess';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    writes: { type: 'string', default: '40' },
    reloads: { type: 'string', default: '8' },
    /** Pause between writes, so each is its own change rather than a burst. */
    'pause-ms': { type: 'string', default: '300' },
    postgres: { type: 'boolean', default: false },
    out: { type: 'string' },
  },
});
const PASSWORD = 'bench-password-1';
const log = (line: string) => process.stderr.write(`${line}\n`);

/** A signed-in browser context of a new account; state-changing requests carry the CSRF token. */
async function member(context: BrowserContext, tag: string) {
  const email = `live-${tag}-${Date.now()}@example.test`;
  const signup = await context.request.post('/api/v1/auth/signup', { data: { email, password: PASSWORD } });
  if (!signup.ok()) throw new Error(`signup: ${signup.status()} ${await signup.text()}`);
  const csrf = (await context.cookies()).find((c) => c.name === 'mw_csrf')!.value;
  const call = async <T>(method: string, path: string, data?: unknown): Promise<T> => {
    const response = await context.request.fetch(path, { method, data, headers: method === 'GET' ? {} : { 'x-csrf-token': csrf } });
    if (!response.ok()) throw new Error(`${method} ${path}: ${response.status()} ${await response.text()}`);
    return (await response.json()) as T;
  };
  return { email, call };
}

/**
 * Resolves with Date.now() once the first review select of the object list shows `state`. Source
 * text: tsx would wrap a named inner function in a helper the page does not have.
 */
const WATCH_REVIEW = `(wanted) => new Promise((done) => {
  const look = () => {
    const select = document.querySelector('[data-testid="object-row"] select[aria-label^="Review of"]');
    if (select && select.value === wanted) done(Date.now());
    else setTimeout(look, 5);
  };
  look();
})`;

function whenShown(page: Page, state: string): Promise<number> {
  return page.evaluate(`(${WATCH_REVIEW})(${JSON.stringify(state)})`) as Promise<number>;
}

async function main(): Promise<void> {
  const staticDir = join(repoRoot, 'dist');
  if (!existsSync(join(staticDir, 'index.html'))) {
    log('building the studio (npx vite build)');
    execFileSync('npx', ['vite', 'build'], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const servers = await startServers(staticDir);
  const { chromiumLaunch } = await import('../playwright.config');
  const browser = await chromium.launch({ ...chromiumLaunch, headless: true });
  try {
    const [aliceContext, bobContext] = [await browser.newContext({ baseURL: servers.alice }), await browser.newContext({ baseURL: servers.bob })];
    const alice = await member(aliceContext, 'alice');
    const bob = await member(bobContext, 'bob');
    const project = await alice.call<Project>('POST', '/api/v1/projects', { name: 'Live bench', classes: [{ id: 1, name: 'cat', color: '#ff5c5c' }] });
    const base = `/api/v1/projects/${project.id}`;
    const image = await alice.call<ProjectImage>('POST', `${base}/images`, { name: 'chelsea.png', image: readFileSync(join(repoRoot, 'public/samples/chelsea.png')).toString('base64') });
    const object: AnnotationObject = { id: 'o1', classId: 1, polygons: [{ outer: [[100, 100], [200, 100], [200, 200], [100, 200]], holes: [] }], source: 'local', confidence: 1, visible: true, review: 'accepted' };
    let revision = (await alice.call<ImageAnnotations>('PUT', `${base}/images/${image.id}/annotations`, { revision: 0, objects: [object] })).revision;
    await alice.call('POST', `${base}/members`, { email: bob.email, role: 'reviewer' });
    await bob.call('POST', `${base}/join`, {});

    const page = await bobContext.newPage();
    const open = async () => {
      await page.goto(`/?project=${project.id}#/`);
      await page.getByTestId('sync-state').filter({ hasText: 'Up to date' }).waitFor({ timeout: 60_000 });
    };
    await open();
    // The wire's review state, and how the object list's select shows it.
    const states = [
      ['unreviewed', 'proposed'],
      ['accepted', 'accepted'],
    ] as const;
    const write = async (i: number) => {
      const [state, shown] = states[i % 2];
      const written = await alice.call<ImageAnnotations>('PUT', `${base}/images/${image.id}/annotations`, { revision, objects: [{ ...object, review: state, ...(state === 'unreviewed' ? { proposedBy: 'text-prompt' } : {}) }] });
      revision = written.revision;
      return shown;
    };

    const live: number[] = [];
    const writes = Number(args.writes);
    for (let i = 0; i < writes; i++) {
      const shown = whenShown(page, states[i % 2][1]);
      const start = Date.now();
      await write(i);
      live.push((await shown) - start);
      await new Promise((r) => setTimeout(r, Number(args['pause-ms'])));
      if ((i + 1) % 10 === 0) log(`live: ${i + 1}/${writes}`);
    }

    const reload: number[] = [];
    const reloads = Number(args.reloads);
    for (let i = writes; i < writes + reloads; i++) {
      const start = Date.now();
      const state = await write(i);
      await open();
      reload.push((await whenShown(page, state)) - start);
      log(`reload: ${i - writes + 1}/${reloads}`);
    }

    const rows: Array<[string, number[]]> = [
      ['event stream (this studio)', live],
      ['reload right after the write (peer: the studio before issue 38)', reload],
    ];
    const table = [
      '| write → shown in the other studio, ms | n | p50 | p95 | max |',
      '|---|---:|---:|---:|---:|',
      ...rows.map(([name, samples]) => {
        const sorted = [...samples].sort((a, b) => a - b);
        return `| ${name} | ${samples.length} | ${percentile(sorted, 50)} | ${percentile(sorted, 95)} | ${sorted.at(-1)} |`;
      }),
    ].join('\n');
    process.stdout.write(`${table}\n`);
    const result = (samples: number[]) => ({ ...summarize(samples), p95: percentile([...samples].sort((a, b) => a - b), 95), samples });
    const out = args.out ?? join(repoRoot, `bench/results/${args.postgres ? 'liveUpdatesPostgres' : 'liveUpdates'}.json`);
    mkdirSync(dirname(out), { recursive: true });
    const setup = args.postgres ? 'PostgreSQL, two server processes (write on 1, studio on 2)' : 'SQLite, one server process';
    writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), setup, machine: { cpus: cpus().length, model: cpus()[0]?.model, loadavg: loadavg() }, live: result(live), reload: result(reload) }, null, 2)}\n`);
    log(`${setup}; load ${loadavg().map((l) => l.toFixed(1)).join(' / ')}; wrote ${out}`);
  } finally {
    await browser.close();
    await servers.stop();
  }
}

/** Where Alice writes and where Bob's studio is served: one SQLite server, or two server processes on one PostgreSQL schema. */
async function startServers(staticDir: string): Promise<{ alice: string; bob: string; stop: () => Promise<void> }> {
  if (!args.postgres) {
    const server = await startServerProcess('live', { STATIC_DIR: staticDir });
    return { alice: server.url, bob: server.url, stop: server.stop };
  }
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!databaseUrl) throw new Error('--postgres needs BENCH_DATABASE_URL (or TEST_DATABASE_URL)');
  const schema = `bench_live_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`CREATE SCHEMA "${schema}"`);
  // No inference is asked of them: one small engine worker each, no job workers.
  const env = { STATIC_DIR: staticDir, DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema, INFERENCE_WORKERS: '1', INFERENCE_THREADS: '1', JOB_CONCURRENCY: '0' };
  const first = await startServerProcess('live-1', env);
  const second = await startServerProcess('live-2', env);
  log(`PostgreSQL schema ${schema}: Alice writes on ${first.url}, Bob's studio on ${second.url}`);
  return {
    alice: first.url,
    bob: second.url,
    stop: async () => {
      await second.stop();
      await first.stop();
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    },
  };
}

await main();
