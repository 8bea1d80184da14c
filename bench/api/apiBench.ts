/**
 * `npm run bench:api`: the API's own cost, side by side in one run, on loopback —
 *   1. HTTP floor: GET /api/v1/health (what any request pays for HTTP + Fastify),
 *   2. the bare engine: runPvs in this process on the same image, point and cached embedding,
 *   3. the full API path: POST /api/v1/pvs with a cached imageId, a new paid attempt each time
 *      (X-Force-Refresh: true): auth, rate limit, idempotency, charge, worker thread, settle,
 *   4. an idempotent replay (same Idempotency-Key): no engine, no charge,
 *   5. 3 and 4 again with a thumbnail of the image (64 px wide): the per-request cost without the
 *      part that grows with the body (receiving, parsing, Base64, hashing),
 *   6. a rejected request (401, unknown key).
 * Reports p50/p90/p99 latency and throughput per phase and API overhead = full path − bare
 * engine (p50), against the targets (overhead ≤ 3 ms, replay ≤ 2 ms). Writes
 * bench/results/apiBench.json and .md. Sequential requests (one connection) so latencies are
 * not queueing times; bounded by --requests per phase.
 *
 *   npm run bench:api -- [--url http://host:port] [--requests 200] [--engine-requests 100] [--image FILE]
 *                        [--connections 8] [--load-seconds 5]
 * Then the same replay, 401 and paid calls again under concurrent load (autocannon, bounded in time):
 * throughput and latency when requests queue.
 *
 * Without --url it starts its own server process (temporary SQLite, rate limit lifted so the
 * limiter does not answer instead of the path under test — the limiter's own cost is still paid).
 */
import autocannon from 'autocannon';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { call as callWith, newCustomer, repoRoot, startOwnServer, stats, type Stats } from './benchSupport';
import sharp from 'sharp';
import { decodeImage } from '../../src/engine/adapters/nodeImage';
import { loadNodeEngine } from '../../src/engine/adapters/ortNode';
import { runPvs } from '../../src/engine/pvs';

const log = (line: string) => void process.stderr.write(`[bench:api] ${line}\n`);

const { values: args } = parseArgs({
  options: {
    url: { type: 'string' },
    requests: { type: 'string', default: '200' },
    'engine-requests': { type: 'string', default: '100' },
    image: { type: 'string', default: join(repoRoot, 'public/samples/chelsea.png') },
    x: { type: 'string', default: '220' },
    y: { type: 'string', default: '160' },
    out: { type: 'string', default: join(repoRoot, 'bench/results/apiBench') },
    /** Concurrent load (autocannon): connections and seconds per phase; 0 seconds skips it. */
    connections: { type: 'string', default: '8' },
    'load-seconds': { type: 'string', default: '5' },
  },
});
const N = Number(args.requests);
const ENGINE_N = Number(args['engine-requests']);
const point = { x: Number(args.x), y: Number(args.y) };
const CONNECTIONS = Number(args.connections);
const LOAD_SECONDS = Number(args['load-seconds']);

interface LoadStats {
  connections: number;
  seconds: number;
  requests: number;
  perSecond: number;
  p50: number;
  p99: number;
  statuses: Record<string, number>;
  errors: number;
}

/**
 * Throughput under concurrent load, bounded in time (autocannon, keep-alive connections).
 * The sequential phases above measure latency without queueing; this one measures how many
 * requests per second the process sustains and what latency that costs.
 */
async function loadPhase(name: string, base: string, path: string, headers: Record<string, string>, body: Buffer, connections = CONNECTIONS): Promise<LoadStats> {
  const result = await autocannon({ url: `${base}${path}`, method: 'POST', headers, body, connections, duration: LOAD_SECONDS });
  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, v]) => [code, v.count ?? 0]));
  const out: LoadStats = {
    connections,
    seconds: result.duration,
    requests: result.requests.total,
    perSecond: Math.round(result.requests.average * 100) / 100,
    p50: result.latency.p50,
    p99: result.latency.p99,
    statuses,
    errors: result.errors,
  };
  log(`${name} under load (${connections} connections, ${LOAD_SECONDS} s): ${out.perSecond}/s, p50 ${out.p50} ms, p99 ${out.p99} ms, statuses ${JSON.stringify(statuses)}`);
  return out;
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

const call = (base: string, method: string, path: string, headers: Record<string, string>, body?: string | Buffer) => callWith(agent, base, method, path, headers, body);

/** Server-Timing entries of every response of a phase, by name. */
const serverTimings: Record<string, Record<string, number[]>> = {};

function recordServerTiming(phaseName: string, header: string | string[] | undefined): void {
  if (typeof header !== 'string') return;
  const byName = (serverTimings[phaseName] ??= {});
  for (const part of header.split(',')) {
    const match = /^\s*([\w-]+);dur=([\d.]+)/.exec(part);
    if (match) (byName[match[1]] ??= []).push(Number(match[2]));
  }
}

async function phase(
  name: string,
  n: number,
  send: () => Promise<{ status: number; headers?: Record<string, string | string[] | undefined> }>,
  expectStatus: number,
): Promise<Stats> {
  const samples: number[] = [];
  const statuses: Record<string, number> = {};
  for (let i = 0; i < Math.min(5, n); i++) await send(); // warm-up
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const s = performance.now();
    const { status, headers } = await send();
    samples.push(performance.now() - s);
    recordServerTiming(name, headers?.['server-timing']);
    statuses[status] = (statuses[status] ?? 0) + 1;
  }
  const result = stats(samples, performance.now() - t0, statuses);
  const unexpected = Object.keys(statuses).filter((s) => Number(s) !== expectStatus);
  log(`${name}: p50 ${result.p50} ms, p99 ${result.p99} ms, ${result.perSecond}/s${unexpected.length ? `, UNEXPECTED statuses ${JSON.stringify(statuses)}` : ''}`);
  return result;
}

async function main(): Promise<void> {
  const own = args.url ? undefined : await startOwnServer(agent);
  const base = args.url ?? own!.url;
  log(`server ${base}${own ? ' (own process)' : ''}`);
  try {
    const json = { 'content-type': 'application/json' };
    // Paid calls: the sequential phase, plus the concurrent one (bounded by the engine's pace).
    const bearer = await newCustomer(agent, base, 'bench', Math.ceil((ENGINE_N + 20 + 60 * LOAD_SECONDS) / 1600));

    const bytes = readFileSync(args.image);
    // Bytes, encoded once: a client's own JSON encoding is not the server's cost.
    const body = Buffer.from(JSON.stringify({ image: bytes.toString('base64'), imageId: 'bench-image', points: [{ ...point, positive: true }], multimaskOutput: false }));
    const prime = await call(base, 'POST', '/api/v1/pvs', bearer, body);
    if (prime.status !== 200) throw new Error(`priming call failed: ${prime.status} ${prime.text}`);
    // The same photo as a thumbnail (64 px wide PNG): what the API costs when the body is small.
    const smallBytes = await sharp(bytes).resize({ width: 64 }).png().toBuffer();
    const smallBody = Buffer.from(JSON.stringify({ image: smallBytes.toString('base64'), imageId: 'bench-small', points: [{ x: 32, y: 20, positive: true }], multimaskOutput: false }));
    const primeSmall = await call(base, 'POST', '/api/v1/pvs', bearer, smallBody);
    if (primeSmall.status !== 200) throw new Error(`priming call (small image) failed: ${primeSmall.status} ${primeSmall.text}`);

    const results: Record<string, Stats> = {};
    results.httpFloor = await phase('HTTP floor (GET /health)', N, () => call(base, 'GET', '/api/v1/health', {}), 200);

    // The bare engine, in this process: the same decoded image, point and cached embedding.
    const engine = await loadNodeEngine({});
    const image = await decodeImage(bytes);
    await runPvs(engine, image, { points: [point], imageId: 'bench-image' }, { multimask: false });
    {
      const samples: number[] = [];
      const t0 = performance.now();
      for (let i = 0; i < ENGINE_N; i++) {
        const s = performance.now();
        await runPvs(engine, image, { points: [point], imageId: 'bench-image' }, { multimask: false });
        samples.push(performance.now() - s);
      }
      results.bareEngine = stats(samples, performance.now() - t0);
      log(`bare engine (runPvs, cached embedding): p50 ${results.bareEngine.p50} ms`);
    }
    await engine.release();

    results.fullPath = await phase('full API path (/pvs, cached imageId, paid)', ENGINE_N, () => call(base, 'POST', '/api/v1/pvs', { ...bearer, 'x-force-refresh': 'true' }, body), 200);
    results.replay = await phase('idempotent replay', N, () => call(base, 'POST', '/api/v1/pvs', { ...bearer, 'idempotency-key': 'bench-replay' }, body), 200);
    results.fullPathSmall = await phase('full API path, small image', ENGINE_N, () => call(base, 'POST', '/api/v1/pvs', { ...bearer, 'x-force-refresh': 'true' }, smallBody), 200);
    results.replaySmall = await phase('idempotent replay, small image', N, () => call(base, 'POST', '/api/v1/pvs', { ...bearer, 'idempotency-key': 'bench-replay-small' }, smallBody), 200);
    results.rejected401 = await phase('rejected (401 unknown key)', N, () => call(base, 'POST', '/api/v1/pvs', { ...json, authorization: 'Bearer mwk_not-a-key' }, body), 401);

    const load: Record<string, LoadStats> = {};
    if (LOAD_SECONDS > 0) {
      load.replay = await loadPhase('idempotent replay', base, '/api/v1/pvs', { ...bearer, 'idempotency-key': 'bench-replay' }, body);
      load.rejected401 = await loadPhase('rejected (401 unknown key)', base, '/api/v1/pvs', { ...json, authorization: 'Bearer mwk_not-a-key' }, body);
      // Paid calls wait for the one inference worker: 2 connections keep it busy without filling the queue.
      load.fullPath = await loadPhase('full API path (paid)', base, '/api/v1/pvs', { ...bearer, 'x-force-refresh': 'true' }, body, 2);
    }

    const overheadP50 = Math.round((results.fullPath.p50 - results.bareEngine.p50) * 100) / 100;
    // The same request seen from inside the server: everything but the engine call itself.
    const p50Of = (values: number[] = []) => (values.length ? stats(values, 1).p50 : NaN);
    const inServer = (phaseName: string) => {
      const timings = serverTimings[phaseName] ?? {};
      const parts = Object.fromEntries(Object.entries(timings).map(([k, v]) => [k, p50Of(v)]));
      const overhead = p50Of((timings.total ?? []).map((total, i) => total - (timings.engine?.[i] ?? 0)));
      log(`${phaseName}, server-side p50 (Server-Timing): ${JSON.stringify(parts)}; total − engine = ${overhead} ms`);
      return { parts, overhead };
    };
    const { parts: serverSide, overhead: serverOverheadP50 } = inServer('full API path (/pvs, cached imageId, paid)');
    const { parts: serverSideSmall, overhead: serverOverheadSmallP50 } = inServer('full API path, small image');
    const replayServerP50 = inServer('idempotent replay').parts.total;
    const replaySmallServerP50 = inServer('idempotent replay, small image').parts.total;
    const report = {
      when: new Date().toISOString(),
      machine: { cpus: cpus().length, model: cpus()[0]?.model, loadavg: loadavg().map((l) => Math.round(l * 100) / 100) },
      image: args.image,
      imageBase64Chars: bytes.toString('base64').length,
      smallImageBase64Chars: smallBytes.toString('base64').length,
      requestsPerPhase: N,
      engineRequestsPerPhase: ENGINE_N,
      results,
      load,
      overheadP50Ms: overheadP50,
      serverTimingP50Ms: serverSide,
      serverOverheadP50Ms: serverOverheadP50,
      serverTimingSmallP50Ms: serverSideSmall,
      serverOverheadSmallP50Ms: serverOverheadSmallP50,
      replayServerP50Ms: replayServerP50,
      replaySmallServerP50Ms: replaySmallServerP50,
      targets: {
        /** Indicative only (two different engine instances); the server-side figure is the one judged. */
        clientOverheadP50Ms: { target: 3, actual: overheadP50, met: overheadP50 >= 0 && overheadP50 <= 3 },
        serverOverheadP50Ms: { target: 3, actual: serverOverheadP50, met: serverOverheadP50 <= 3 },
        replayP50Ms: { target: 2, actual: results.replay.p50, met: results.replay.p50 <= 2 },
        serverOverheadSmallP50Ms: { target: 3, actual: serverOverheadSmallP50, met: serverOverheadSmallP50 <= 3 },
        replaySmallP50Ms: { target: 2, actual: results.replaySmall.p50, met: results.replaySmall.p50 <= 2 },
      },
    };
    const rows = [
      ['HTTP floor: GET /api/v1/health', results.httpFloor],
      ['bare engine: runPvs, cached embedding', results.bareEngine],
      ['full API path: POST /pvs, cached imageId, paid', results.fullPath],
      ['idempotent replay', results.replay],
      [`full API path, small image (${smallBytes.toString('base64').length} Base64 characters)`, results.fullPathSmall],
      ['idempotent replay, small image', results.replaySmall],
      ['rejected: 401', results.rejected401],
    ] as const;
    const md = [
      `# API benchmark (${report.when})`,
      '',
      `${report.machine.cpus} × ${report.machine.model}, load average ${report.machine.loadavg.join(' / ')}; image ${args.image} (${report.imageBase64Chars} Base64 characters), one connection, sequential.`,
      '',
      '| phase | n | p50 ms | p90 ms | p99 ms | per second |',
      '|---|---|---|---|---|---|',
      ...rows.map(([name, s]) => `| ${name} | ${s.n} | ${s.p50} | ${s.p90} | ${s.p99} | ${s.perSecond} |`),
      '',
      `API overhead, measured inside the server (Server-Timing total − engine, p50): **${serverOverheadP50} ms** (target ≤ 3 ms: ${report.targets.serverOverheadP50Ms.met ? 'met' : 'NOT met'}); p50 by part: ${Object.entries(serverSide).map(([k, v]) => `${k} ${v} ms`).join(', ')} (charge runs while the worker does: it is not part of the overhead).`,
      `Seen from the client (full path − bare engine, p50): ${overheadP50} ms — indicative only: the bare engine runs in this process and the server's in a worker thread, and the two engine times differ by more than the overhead${overheadP50 < 0 ? ' (here the difference is negative)' : ''}.`,
      `Replay p50: **${results.replay.p50} ms** (target ≤ 2 ms: ${report.targets.replayP50Ms.met ? 'met' : 'NOT met'}); inside the server ${replayServerP50} ms.`,
      '',
      `With the small image: API overhead inside the server **${serverOverheadSmallP50} ms** (target ≤ 3 ms: ${report.targets.serverOverheadSmallP50Ms.met ? 'met' : 'NOT met'}); p50 by part: ${Object.entries(serverSideSmall).map(([k, v]) => `${k} ${v} ms`).join(', ')}. Replay p50 **${results.replaySmall.p50} ms** (target ≤ 2 ms: ${report.targets.replaySmallP50Ms.met ? 'met' : 'NOT met'}); inside the server ${replaySmallServerP50} ms.`,
      '',
      ...(Object.keys(load).length
        ? [
            `Under concurrent load (autocannon, ${LOAD_SECONDS} s per phase):`,
            '',
            '| phase | connections | requests | per second | p50 ms | p99 ms | statuses |',
            '|---|---|---|---|---|---|---|',
            ...Object.entries(load).map(
              ([name, l]) => `| ${name} | ${l.connections} | ${l.requests} | ${l.perSecond} | ${l.p50} | ${l.p99} | ${Object.entries(l.statuses).map(([c, n]) => `${c}×${n}`).join(' ')}${l.errors ? `, ${l.errors} errors` : ''} |`,
            ),
            '',
          ]
        : []),
    ].join('\n');
    mkdirSync(dirname(args.out), { recursive: true });
    writeFileSync(`${args.out}.json`, `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(`${args.out}.md`, md);
    process.stdout.write(md);
    log(`wrote ${args.out}.json and .md`);
  } finally {
    agent.destroy();
    await own?.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
