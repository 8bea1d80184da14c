/**
 * `npm run bench:flood`: does one account's flood of refunded calls slow another account's clicks?
 * In one run, per server configuration (each its own server process, temporary SQLite, the real
 * per-account rate limit of 3/s):
 *   1. account B alone clicks a photo it sent (a new point per click, paced like a person),
 *   2. B clicks the same way while account A floods from several connections with calls that can
 *      only end refunded — a new 16 × 16 flat photo each time with a 1 × 1 box: an encoder run
 *      that finds no mask, refunded, free for A.
 * Reports B's p50/p95 alone and under the flood (and the flood's first seconds apart, while A's
 * refunded-work budget lasts), the ratio against the target (p50 at most 2× alone), and what A's
 * calls got. Writes bench/results/floodBench.json and .md.
 *
 *   npm run bench:flood -- [--clicks 60] [--pace-ms 400] [--flooders 4] [--configs defaults,noBudget,oneWorker]
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { call, newCustomer, repoRoot, stats, type Stats } from './benchSupport';
import { startServerProcess } from '../serverProcess';

const log = (line: string) => void process.stderr.write(`[bench:flood] ${line}\n`);

const { values: args } = parseArgs({
  options: {
    clicks: { type: 'string', default: '60' },
    'pace-ms': { type: 'string', default: '400' },
    flooders: { type: 'string', default: '4' },
    configs: { type: 'string', default: 'defaults,noBudget,oneWorker' },
    image: { type: 'string', default: join(repoRoot, 'public/samples/chelsea.png') },
    out: { type: 'string', default: join(repoRoot, 'bench/results/floodBench') },
    /** Seconds from the flood's start reported apart: while A's refunded-work budget (10 by default) lasts. */
    'early-seconds': { type: 'string', default: '15' },
  },
});
const CLICKS = Number(args.clicks);
const PACE_MS = Number(args['pace-ms']);
const FLOODERS = Number(args.flooders);
const EARLY_MS = Number(args['early-seconds']) * 1000;

/** Server settings per configuration, on top of the server's defaults (and the spec's 3 requests/s). */
const CONFIGS: Record<string, { label: string; env: Record<string, string> }> = {
  defaults: { label: 'defaults (one worker per core × 1 thread, fair queue, refund budget 10 / 600 s)', env: {} },
  noBudget: { label: 'fair queue only (refund budget lifted)', env: { REFUND_BUDGET: '1000000' } },
  oneWorker: { label: '1 worker × every core as threads (the default before issue 29)', env: { INFERENCE_WORKERS: '1' } },
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A photo the server has not seen whose only prompt finds nothing: a flat 16 × 16 square and a 1 × 1 box. */
async function refundedCallBody(n: number): Promise<Buffer> {
  const shade = n % 256;
  const flat = await sharp({ create: { width: 16, height: 16, channels: 3, background: { r: shade, g: (n >> 8) % 256, b: 128 } } }).png().toBuffer();
  return Buffer.from(JSON.stringify({ image: flat.toString('base64'), box: { x: 8, y: 8, width: 1, height: 1 }, multimaskOutput: false }));
}

/** The problem type of an answer, or its status. */
function outcomeOf(answer: { status: number; text: string; headers: Record<string, unknown> }): string {
  if (answer.status === 200) return answer.headers['x-service-refunded'] === 'true' ? '200 refunded' : '200 charged';
  try {
    return `${answer.status} ${String(JSON.parse(answer.text).type).replace('/problems/', '')}`;
  } catch {
    return String(answer.status);
  }
}

interface ClickRun {
  all: Stats;
  early: Stats | null;
  late: Stats | null;
}

/** B's clicks: a new point each time on its photo, one at a time, at most one per `PACE_MS`. */
async function clicks(agent: Agent, base: string, bearer: Record<string, string>, imageB64: string, size: { width: number; height: number }, seed: number, startedAt: number): Promise<ClickRun> {
  const samples: { at: number; ms: number }[] = [];
  const statuses: Record<string, number> = {};
  let state = seed;
  const random = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const t0 = performance.now();
  for (let i = 0; i < CLICKS; i++) {
    const point = { x: Math.round(size.width * (0.2 + 0.6 * random())), y: Math.round(size.height * (0.2 + 0.6 * random())), positive: true };
    const body = JSON.stringify({ image: imageB64, imageId: 'b-photo', points: [point], multimaskOutput: false });
    const s = performance.now();
    const answer = await call(agent, base, 'POST', '/api/v1/pvs', bearer, body);
    const ms = performance.now() - s;
    samples.push({ at: s - startedAt, ms });
    const outcome = outcomeOf(answer);
    statuses[outcome] = (statuses[outcome] ?? 0) + 1;
    await sleep(Math.max(0, PACE_MS - ms));
  }
  const elapsed = performance.now() - t0;
  const early = samples.filter((x) => x.at < EARLY_MS).map((x) => x.ms);
  const late = samples.filter((x) => x.at >= EARLY_MS).map((x) => x.ms);
  return {
    all: stats(samples.map((x) => x.ms), elapsed, statuses),
    early: early.length ? stats(early, elapsed) : null,
    late: late.length ? stats(late, elapsed) : null,
  };
}

interface ConfigResult {
  config: string;
  label: string;
  alone: ClickRun;
  flooded: ClickRun;
  ratioP50: number;
  ratioP95: number;
  flood: { requests: number; outcomes: Record<string, number> };
}

async function runConfig(name: string, imageBytes: Buffer): Promise<ConfigResult> {
  const config = CONFIGS[name];
  if (!config) throw new Error(`unknown configuration ${name}; known: ${Object.keys(CONFIGS).join(', ')}`);
  const agent = new Agent({ keepAlive: true, maxSockets: FLOODERS + 2 });
  const own = await startServerProcess('flood', { RATE_LIMIT_PER_SECOND: '3', ...config.env });
  try {
    log(`${config.label}: server ${own.url}`);
    const clicker = await newCustomer(agent, own.url, 'clicker', 1);
    // The flooder keeps its 5 free credits: its calls are refunded, so it never needs more.
    const flooder = await newCustomer(agent, own.url, 'flooder', 0);
    const imageB64 = imageBytes.toString('base64');
    const meta = await sharp(imageBytes).metadata();
    const size = { width: meta.width!, height: meta.height! };
    const prime = await call(agent, own.url, 'POST', '/api/v1/pvs', clicker, JSON.stringify({ image: imageB64, imageId: 'b-photo', points: [{ x: size.width / 2, y: size.height / 2, positive: true }] }));
    if (prime.status !== 200) throw new Error(`priming failed: ${prime.status} ${prime.text}`);
    await sleep(400);

    const alone = await clicks(agent, own.url, clicker, imageB64, size, 1, performance.now());
    log(`  B alone: p50 ${alone.all.p50} ms, p95 ${alone.all.p95} ms ${JSON.stringify(alone.all.statuses)}`);

    const outcomes: Record<string, number> = {};
    let requests = 0;
    let flooding = true;
    let n = Math.floor(Math.random() * 1e6);
    const floodStart = performance.now();
    const flooders = Array.from({ length: FLOODERS }, async () => {
      while (flooding) {
        const answer = await call(agent, own.url, 'POST', '/api/v1/pvs', flooder, await refundedCallBody(n++));
        requests += 1;
        const outcome = outcomeOf(answer);
        outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
        // A flooder does not wait out Retry-After; it only spares this machine's CPU a busy loop.
        if (answer.status === 429) await sleep(100);
      }
    });
    await sleep(200); // the flood is under way when B starts clicking
    const flooded = await clicks(agent, own.url, clicker, imageB64, size, 2, floodStart);
    flooding = false;
    await Promise.all(flooders);
    log(`  B under flood: p50 ${flooded.all.p50} ms, p95 ${flooded.all.p95} ms ${JSON.stringify(flooded.all.statuses)}; A: ${requests} calls ${JSON.stringify(outcomes)}`);
    const round = (v: number) => Math.round(v * 100) / 100;
    return {
      config: name,
      label: config.label,
      alone,
      flooded,
      ratioP50: round(flooded.all.p50 / alone.all.p50),
      ratioP95: round(flooded.all.p95 / alone.all.p95),
      flood: { requests, outcomes },
    };
  } finally {
    agent.destroy();
    await own.stop();
  }
}

async function main(): Promise<void> {
  const imageBytes = readFileSync(args.image);
  const loadBefore = loadavg().map((l) => Math.round(l * 100) / 100);
  const results: ConfigResult[] = [];
  for (const name of args.configs!.split(',').filter(Boolean)) results.push(await runConfig(name, imageBytes));
  const report = {
    when: new Date().toISOString(),
    machine: { cpus: cpus().length, model: cpus()[0]?.model, loadavgBefore: loadBefore, loadavgAfter: loadavg().map((l) => Math.round(l * 100) / 100) },
    image: args.image,
    clicks: CLICKS,
    paceMs: PACE_MS,
    flooders: FLOODERS,
    earlySeconds: EARLY_MS / 1000,
    target: 'B p50 under flood ≤ 2 × B p50 alone',
    results: results.map((r) => ({ ...r, targetMet: r.ratioP50 <= 2 })),
  };
  const fmt = (s: Stats | null) => (s ? `${s.p50} / ${s.p95} (n ${s.n})` : '–');
  const md = [
    `# Flood benchmark (${report.when})`,
    '',
    `${report.machine.cpus} × ${report.machine.model}, load average ${loadBefore.join(' / ')} before, ${report.machine.loadavgAfter.join(' / ')} after. Account B clicks ${CLICKS} new points on ${args.image.split('/').pop()} (one at a time, at most one per ${PACE_MS} ms, server default look); account A floods from ${FLOODERS} connections with calls that end refunded (a new 16 × 16 flat photo with a 1 × 1 box each). Rate limit 3/s per account. Latencies in ms, p50 / p95.`,
    '',
    `| configuration | B alone | B under flood | first ${EARLY_MS / 1000} s of the flood | after | p50 ratio (target ≤ 2) | p95 ratio | A's calls |`,
    '|---|---|---|---|---|---|---|---|',
    ...report.results.map(
      (r) =>
        `| ${r.label} | ${fmt(r.alone.all)} | ${fmt(r.flooded.all)} | ${fmt(r.flooded.early)} | ${fmt(r.flooded.late)} | **${r.ratioP50}** (${r.targetMet ? 'met' : 'NOT met'}) | ${r.ratioP95} | ${r.flood.requests}: ${Object.entries(r.flood.outcomes).map(([k, v]) => `${k} ×${v}`).join(', ')} |`,
    ),
    '',
  ].join('\n');
  mkdirSync(dirname(args.out!), { recursive: true });
  writeFileSync(`${args.out}.json`, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(`${args.out}.md`, md);
  process.stdout.write(md);
  log(`wrote ${args.out}.json and .md`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
