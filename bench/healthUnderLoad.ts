/**
 * `npm run bench:health`: does one user's heavy request stall everyone else (issue 39)? A real
 * server in a process of its own (bench/serverProcess.ts: temporary SQLite, loopback, one inference
 * worker, MALLOC_MMAP_THRESHOLD_ as `npm run serve` sets it unless --glibc-default), then, one at a
 * time, the heavy requests the issue lists:
 *   - uploads: a 39 MP JPEG (and its first thumbnail), a 35-byte GIF whose frame is 16300² (refused), a truncated PNG (refused);
 *   - annotation writes: the most one image may hold, as many small objects (2,000 × 125 vertices)
 *     and as a few huge rings (4 × 62,500 vertices), and the issue's 12 MB body of 13 rings ×
 *     100,000 whole-pixel vertices (refused 413);
 *   - an export of the project (both images, 500,000 vertices) in every format.
 * First, as a control, nothing for 5 s (what the probes cost at the machine's load of the moment).
 * While each runs, `GET /api/v1/health` is sent every 50 ms (each probe on its own, not waiting for
 * the one before), and each probe's latency is kept: p50, p99 and max per request. The server
 * process's RSS (from /proc, the server alone, not this client) is read after start, every 250 ms
 * during the run (peak), and after the run once the pool's idle threads have ended (35 s) and it
 * has stopped falling.
 * The server writes every block of its event loop of 20 ms or more (LOOP_BLOCK_LOG, src/server/loopBlockLog.ts):
 * each row gives the longest block during its request, in wall time and in the main thread's CPU
 * (the part that does not depend on the machine's load: what a probe waits for on a quiet machine).
 * Prints a table and writes bench/results/healthUnderLoad.json.
 *
 *   npm run bench:health -- [--formats coco,yolo] [--idle-seconds 35] [--settle-seconds 60] [--skip-uploads] [--skip-writes] [--glibc-default | --plain-start]
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { EXPORT_FORMATS, type AnnotationObject } from '../src/contract/projects';
import type { LoopBlock } from '../src/server/loopBlockLog';
import { MALLOC_SETTING_ENV } from '../src/server/mallocSetting';
import { gifFrameBomb } from '../test/support/badImages';
import { LoopBlockFile, longestBlock, type LongestBlock } from './loopBlocks';
import { ringObjects } from './ringObjects';
import { startServerProcess } from './serverProcess';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const log = (line: string) => void process.stderr.write(`[bench:health] ${line}\n`);
const PROBE_EVERY_MS = 50;

const { values: args } = parseArgs({
  options: {
    formats: { type: 'string', default: EXPORT_FORMATS.join(',') },
    'settle-seconds': { type: 'string', default: '60' },
    'idle-seconds': { type: 'string', default: '35' },
    'glibc-default': { type: 'boolean', default: false },
    'plain-start': { type: 'boolean', default: false },
    'skip-uploads': { type: 'boolean', default: false },
    'skip-writes': { type: 'boolean', default: false },
  },
});

/** The server's resident memory in MB, from /proc (Linux). */
function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

/** Waits until the RSS has not fallen by more than 2 MB over 10 s (at most `limitS`); answers the last reading. */
async function settledRss(pid: number, limitS: number): Promise<number> {
  const readings: number[] = [rssMb(pid)];
  for (let s = 0; s < limitS; s++) {
    await new Promise((r) => setTimeout(r, 1000));
    readings.push(rssMb(pid));
    if (readings.length > 10 && readings[readings.length - 11] - readings[readings.length - 1] < 2) break;
  }
  return readings[readings.length - 1];
}

/**
 * CPU time the server's main thread (the event loop: its thread id is the process id) has used so
 * far, in ms (/proc, clock ticks of 10 ms): what a request costs the loop, whatever the machine's load.
 */
function mainThreadCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : NaN);

interface Row {
  request: string;
  status: number;
  tookMs: number;
  probes: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Probes that got no 200 (timed out after 30 s, or an error status). */
  failedProbes: number;
  /** CPU the server's event loop used meanwhile, the probes' own included (the idle row shows theirs). */
  mainThreadCpuMs: number;
  /** The longest event-loop block while the request ran (LOOP_BLOCK_LOG): wall and main-thread CPU ms; 0 when none reached 20 ms. */
  longestBlock: LongestBlock;
  /** Blocks with 50 ms or more of main-thread CPU. */
  blocksOver50CpuMs: number;
  /** Another account's small annotation writes sent one after another while the request ran (their latencies). */
  otherAccountWrites?: { count: number; p50Ms: number; p99Ms: number; maxMs: number; statuses: number[] };
}

/** Another account's small writes, one after another on its own image, until `stop` resolves: each one's latency and status. */
async function smallWritesUntil(stop: Promise<unknown>, writeSmall: () => Promise<Response>): Promise<NonNullable<Row['otherAccountWrites']>> {
  let stopped = false;
  void stop.finally(() => (stopped = true));
  const latencies: number[] = [];
  const statuses = new Set<number>();
  while (!stopped) {
    const started = performance.now();
    const response = await writeSmall();
    latencies.push(performance.now() - started);
    statuses.add(response.status);
    await new Promise((r) => setTimeout(r, PROBE_EVERY_MS));
  }
  latencies.sort((a, b) => a - b);
  return { count: latencies.length, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), maxMs: latencies[latencies.length - 1] ?? NaN, statuses: [...statuses] };
}

/** Runs `work` while probing the server's health every 50 ms; the probes' latencies and the work's status and time. */
async function probed(url: string, pid: number, blockLog: LoopBlockFile, request: string, work: () => Promise<Response>, writeSmall?: () => Promise<Response>): Promise<Row> {
  const cpuBefore = mainThreadCpuMs(pid);
  const blocksBefore = blockLog.read().length;
  const latencies: Promise<number | undefined>[] = [];
  const probe = () => {
    const started = performance.now();
    latencies.push(
      fetch(`${url}/api/v1/health`, { signal: AbortSignal.timeout(30_000) })
        .then(async (r) => (await r.arrayBuffer(), r.ok ? performance.now() - started : undefined))
        .catch(() => undefined),
    );
  };
  const started = performance.now();
  probe();
  const timer = setInterval(probe, PROBE_EVERY_MS);
  let status: number;
  let otherAccountWrites: Row['otherAccountWrites'];
  try {
    // A refused 12 MB body may be cut off by the server's early answer (EPIPE here): status -1, not the bench's end.
    const done = work().then(
      async (response) => (await response.arrayBuffer(), response.status),
      () => -1,
    );
    const sideWrites = writeSmall ? smallWritesUntil(done, writeSmall) : undefined;
    status = await done;
    otherAccountWrites = await sideWrites;
  } finally {
    clearInterval(timer);
  }
  const tookMs = performance.now() - started;
  const settled = await Promise.all(latencies);
  const mainThreadCpu = mainThreadCpuMs(pid) - cpuBefore;
  // The blocking tick is written by the server when the block ends: give it a moment.
  await new Promise((r) => setTimeout(r, 50));
  const blocks = blockLog.read(blocksBefore);
  const longest = longestBlock(blocks);
  const blocksOver50CpuMs = blocks.filter((b) => b.cpuMs >= 50).length;
  const ok = settled.filter((l): l is number => l !== undefined).sort((a, b) => a - b);
  const row = { request, status, tookMs, probes: settled.length, p50Ms: percentile(ok, 50), p99Ms: percentile(ok, 99), maxMs: ok[ok.length - 1] ?? NaN, failedProbes: settled.length - ok.length, mainThreadCpuMs: mainThreadCpu, longestBlock: longest, blocksOver50CpuMs, ...(otherAccountWrites ? { otherAccountWrites } : {}) };
  log(`${request}: ${status} in ${Math.round(tookMs)} ms; health p50 ${row.p50Ms.toFixed(1)} p99 ${row.p99Ms.toFixed(1)} max ${row.maxMs.toFixed(1)} ms over ${row.probes} probes; server main thread CPU ${mainThreadCpu} ms; longest loop block ${longest.wallMs.toFixed(0)} ms wall / ${longest.cpuMs.toFixed(0)} ms CPU (${blocksOver50CpuMs} ≥ 50 ms CPU)${otherAccountWrites ? `; another account's ${otherAccountWrites.count} small writes p50 ${otherAccountWrites.p50Ms.toFixed(1)} p99 ${otherAccountWrites.p99Ms.toFixed(1)} max ${otherAccountWrites.maxMs.toFixed(1)} ms (${otherAccountWrites.statuses.join(', ')})` : ''}`);
  return row;
}

/** A new account with an API key and a project of three classes: how to call the API as it. */
async function accountWithProject(url: string, tag: string) {
  const signup = await fetch(`${url}/api/v1/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: `bench-${tag}-${Date.now()}@example.test`, password: 'a long bench password' }) });
  const cookies = signup.headers.getSetCookie().map((c) => c.split(';')[0]);
  const csrf = cookies.find((c) => c.startsWith('mw_csrf='))!.slice('mw_csrf='.length);
  const keyResponse = await fetch(`${url}/api/v1/api-keys`, { method: 'POST', headers: { cookie: cookies.join('; '), 'x-csrf-token': csrf } });
  const { key } = (await keyResponse.json()) as { key: string };
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const send = (path: string, method: string, body?: string, extra: Record<string, string> = {}) => fetch(`${url}${path}`, { method, headers: { ...headers, ...extra }, body });
  const project = (await (await send('/api/v1/projects', 'POST', JSON.stringify({ name: tag, classes: [1, 2, 3].map((id) => ({ id, name: `class ${id}`, color: '#ff0000' })) }))).json()) as { id: string };
  const projectPath = `/api/v1/projects/${project.id}`;
  const upload = (name: string, bytes: Buffer) => send(`${projectPath}/images`, 'POST', JSON.stringify({ name, image: bytes.toString('base64') }));
  return { send, projectPath, upload };
}

/** For each set of requests in flight, its longest block by CPU: `- kinds: CPU / wall ms (n blocks ≥ 20 ms)`. */
function longestBlocksByKind(blocks: LoopBlock[]): string[] {
  const byKind = new Map<string, { cpuMs: number; wallMs: number; count: number }>();
  for (const block of blocks) {
    const kinds = block.inFlight.filter((kind) => !kind.endsWith('/health')).join(' + ') || '(none but /health)';
    const seen = byKind.get(kinds) ?? { cpuMs: 0, wallMs: 0, count: 0 };
    if (block.cpuMs > seen.cpuMs) Object.assign(seen, { cpuMs: block.cpuMs, wallMs: block.wallMs });
    seen.count += 1;
    byKind.set(kinds, seen);
  }
  return [...byKind].sort((a, b) => b[1].cpuMs - a[1].cpuMs).map(([kinds, b]) => `- ${kinds}: ${b.cpuMs.toFixed(0)} ms CPU / ${b.wallMs.toFixed(0)} ms wall (${b.count} blocks ≥ 20 ms)`);
}

async function main(): Promise<void> {
  const formats = args.formats!.split(',').filter(Boolean);
  log(`starting a server process (load average ${loadavg()[0].toFixed(2)} on ${cpus().length} cores)`);
  // As `npm run serve` starts it (package.json): glibc's fixed mmap threshold, see src/server/README.md (Deployment).
  // --plain-start: neither, as `node src/server/main.ts` would be started by hand (the server sets it itself).
  const glibc: Record<string, string> = args['glibc-default'] ? { MASKWRIGHT_MALLOC: 'glibc-default' } : args['plain-start'] ? {} : { ...MALLOC_SETTING_ENV };
  const blockLog = new LoopBlockFile();
  const server = await startServerProcess('health', { INFERENCE_WORKERS: '1', LOOP_BLOCK_LOG: blockLog.path, ...glibc });
  const { url, pid } = server;
  const rows: Row[] = [];
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 250);
  try {
    const startRss = await settledRss(pid, 30);
    peak = startRss;
    log(`server RSS after start: ${startRss.toFixed(0)} MB`);

    const { send, projectPath, upload } = await accountWithProject(url, 'heavy');

    const photo = readFileSync(join(repoRoot, 'public/samples/chelsea.png'));
    const { width, height } = await sharp(photo).metadata();
    // Another account, writing small things on its own image while the heavy requests run.
    const other = await accountWithProject(url, 'other');
    const otherImage = (await (await other.upload('other.png', await sharp(photo).resize(64).png().toBuffer())).json()) as { id: string };
    const oneSmallObject = ringObjects(1, 16, 64, 64);
    let otherRevision = 0;
    const writeSmall = async () => {
      const response = await other.send(`${other.projectPath}/images/${otherImage.id}/annotations`, 'PUT', JSON.stringify({ revision: otherRevision, objects: oneSmallObject }));
      const answer = (await response.json()) as { revision?: number };
      if (typeof answer.revision === 'number') otherRevision = answer.revision;
      return response;
    };
    const manySmall = (await (await upload('many-small.png', photo)).json()) as { id: string };
    const fewHuge = (await (await upload('few-huge.png', await sharp(photo).flop().png().toBuffer())).json()) as { id: string };

    // The control: the same probes with nothing else asked of the server, at the machine's load now.
    rows.push(await probed(url, pid, blockLog, 'nothing (idle 5 s)', () => new Promise<Response>((done) => setTimeout(() => done(new Response(null, { status: 204 })), 5000))));

    if (!args['skip-uploads']) {
      // Smooth content keeps 39 MP inside the 1.5 MB an upload may carry.
      const large = await sharp({ create: { width: 7000, height: 5600, channels: 3, background: { r: 90, g: 140, b: 200 } } }).jpeg({ quality: 70 }).toBuffer();
      let largeId = '';
      rows.push(await probed(url, pid, blockLog, `upload 39 MP JPEG (${(large.length / 1024).toFixed(0)} KiB)`, async () => {
        const response = await upload('large.jpg', large);
        largeId = ((await response.clone().json()) as { id: string }).id;
        return response;
      }));
      rows.push(await probed(url, pid, blockLog, 'thumbnail of the 39 MP JPEG', () => send(`${projectPath}/images/${largeId}/thumbnail`, 'GET')));
      rows.push(await probed(url, pid, blockLog, 'upload GIF frame bomb (16300²)', () => upload('bomb.gif', gifFrameBomb(100, 16_300))));
      rows.push(await probed(url, pid, blockLog, 'upload truncated PNG', () => upload('cut.png', photo.subarray(0, Math.floor(photo.length * 0.6)))));
    }

    const write = async (label: string, imageId: string, objects: AnnotationObject[]) => {
      const body = JSON.stringify({ revision: 0, objects });
      return probed(url, pid, blockLog, `${label} (${(body.length / 1024 / 1024).toFixed(1)} MB)`, () => send(`${projectPath}/images/${imageId}/annotations`, 'PUT', body), writeSmall);
    };
    // The project must hold its objects for the exports, so these two writes are not optional.
    const writes = [
      await write('PUT 2,000 objects × 125 vertices', manySmall.id, ringObjects(2000, 125, width!, height!)),
      await write('PUT 4 rings × 62,500 vertices', fewHuge.id, ringObjects(4, 62_500, width!, height!)),
    ];
    if (!args['skip-writes']) {
      rows.push(...writes);
      rows.push(await write('PUT 13 rings × 100,000 vertices (refused)', manySmall.id, ringObjects(13, 100_000, width!, height!, 0)));
    }

    for (const format of formats) rows.push(await probed(url, pid, blockLog, `export ${format}`, () => send(`${projectPath}/export?format=${format}`, 'GET')));

    // The project work pool ends its waiting threads after 30 s without a job (exports/projectWorkers.ts).
    log(`waiting ${args['idle-seconds']} s for idle worker threads to end, then for the server's RSS to settle (at most ${args['settle-seconds']} s)`);
    await new Promise((r) => setTimeout(r, Number(args['idle-seconds']) * 1000));
    const endRss = await settledRss(pid, Number(args['settle-seconds']));
    clearInterval(sampler);
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN) / 1024;
    // Anonymous memory (heaps, buffers) apart from mapped files (code, models): what a leak would grow.
    const memory = { startMb: startRss, peakMb: peak, afterMb: endRss, growthMb: endRss - startRss, afterAnonMb: field('RssAnon'), afterFileMb: field('RssFile') };

    const table = [
      '| request | status | took | health probes | p50 | p99 | max | failed | main thread CPU | longest loop block: wall / CPU | blocks ≥ 50 ms CPU | another account\'s small writes: n, p50 / p99 / max |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
      ...rows.map((r) => {
        const others = r.otherAccountWrites ? `${r.otherAccountWrites.count}, ${r.otherAccountWrites.p50Ms.toFixed(1)} / ${r.otherAccountWrites.p99Ms.toFixed(1)} / ${r.otherAccountWrites.maxMs.toFixed(1)} ms (${r.otherAccountWrites.statuses.join(', ')})` : '';
        return `| ${r.request} | ${r.status} | ${Math.round(r.tookMs).toLocaleString('en-US')} ms | ${r.probes} | ${r.p50Ms.toFixed(1)} ms | ${r.p99Ms.toFixed(1)} ms | ${r.maxMs.toFixed(1)} ms | ${r.failedProbes} | ${r.mainThreadCpuMs} ms | ${r.longestBlock.wallMs.toFixed(0)} / ${r.longestBlock.cpuMs.toFixed(0)} ms | ${r.blocksOver50CpuMs} | ${others} |`;
      }),
      '',
      `Server RSS: ${memory.startMb.toFixed(0)} MB after start, ${memory.peakMb.toFixed(0)} MB at the peak, ${memory.afterMb.toFixed(0)} MB after the run (${memory.growthMb >= 0 ? '+' : ''}${memory.growthMb.toFixed(0)} MB; of it ${memory.afterAnonMb.toFixed(0)} MB anonymous, ${memory.afterFileMb.toFixed(0)} MB mapped files).`,
      `Worst p99 of any request: ${Math.max(...rows.map((r) => r.p99Ms)).toFixed(1)} ms; worst single probe: ${Math.max(...rows.map((r) => r.maxMs)).toFixed(1)} ms; longest event-loop block: ${Math.max(...rows.map((r) => r.longestBlock.cpuMs)).toFixed(0)} ms of CPU (${Math.max(...rows.map((r) => r.longestBlock.wallMs)).toFixed(0)} ms wall); load average ${loadavg().map((l) => l.toFixed(2)).join(' / ')}.`,
      '',
      'Longest event-loop blocks by the request kinds in flight (/health probes left out):',
      ...longestBlocksByKind(blockLog.read()),
    ].join('\n');
    console.log(table);
    const out = join(repoRoot, 'bench/results/healthUnderLoad.json');
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, JSON.stringify({ at: new Date().toISOString(), cores: cpus().length, loadAverage: loadavg(), probeEveryMs: PROBE_EVERY_MS, rows, memory }, null, 2));
    log(`wrote ${out}`);
  } finally {
    clearInterval(sampler);
    await server.stop();
    blockLog.remove();
  }
}

await main();
