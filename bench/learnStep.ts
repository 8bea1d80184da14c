/**
 * One learning step of the studio's learned classes in Chromium (issue 37: "updated within 100 ms of
 * each decision"): the studio's SessionLearner on the page, our engine worker describing regions, on
 * raccoon photos from the shared evaluation data (read in place). A simulated person opens the photos
 * one after another and decides on regions one at a time: each raccoon of the ground truth is
 * accepted as "raccoon", and regions away from every raccoon are rejected. A step runs from the
 * decision to the model updated; its parts are the worker's descriptor call (and within it the
 * detector runs), the fit, and the main-thread work of keeping the model (its stored form and the
 * JSON a server project's write sends). It then fills a model to full capacity to size and time its
 * stored form. Between opening a photo and the first decision on it the person looks and clicks
 * for `--think-ms` (clicks on the first raccoon, timed: what the background detector runs must not
 * slow); `--no-prefetch` leaves the detector runs to the first decision, as before the studio made
 * them ahead. Prints p50/p95 and writes bench/results/learn-step.json; its last line gives the step p95
 * and the median first click on the photos after the first (the target and what the prefetch must not slow).
 *
 *   npx tsx bench/learnStep.ts [--decisions 30] [--classes 3] [--think-ms 3000] [--no-prefetch] [--no-build] [--port 4179]
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { sharedPath } from '../test/support/sharedData';
import { buildBenchPage, openBenchPage, serveBenchPage } from './benchPage';
import { processTreeCpuMs } from './cpuTime';
import { percentile } from './browser/stats';
import type { LearnStepSample } from './browser/learnStep';

const { values } = parseArgs({
  options: {
    decisions: { type: 'string', default: '30' },
    classes: { type: 'string', default: '3' },
    'no-build': { type: 'boolean', default: false },
    'think-ms': { type: 'string', default: '3000' },
    'no-prefetch': { type: 'boolean', default: false },
    port: { type: 'string', default: '4179' },
  },
  strict: true,
});
const decisions = Number(values.decisions);
const log = (line: string): void => void process.stderr.write(`[learn-step] ${line}\n`);

interface Coco {
  images: { id: number; file_name: string; width: number; height: number }[];
  annotations: { image_id: number; bbox: [number, number, number, number] }[];
}
type Box = readonly [number, number, number, number];

const root = sharedPath('eval/raccoon');
const coco = JSON.parse(readFileSync(join(root, 'instances.json'), 'utf8')) as Coco;

const overlap = (a: Box, b: Box) => Math.max(0, Math.min(a[0] + a[2], b[0] + b[2]) - Math.max(a[0], b[0])) * Math.max(0, Math.min(a[1] + a[3], b[1] + b[3]) - Math.max(a[1], b[1]));

/** Two regions a quarter of the photo wide, in corners no raccoon reaches much: what a person rejects there. */
function rejectedRegions(width: number, height: number, raccoons: readonly Box[]): Box[] {
  const w = Math.round(width / 4);
  const h = Math.round(height / 4);
  const corners: Box[] = [
    [0, 0, w, h],
    [width - w, 0, w, h],
    [0, height - h, w, h],
    [width - w, height - h, w, h],
  ];
  return corners.filter((c) => raccoons.every((r) => overlap(c, r) < 0.2 * w * h)).slice(0, 2);
}

/** The decisions in the order a person makes them: photo by photo, raccoons first, then the rejections. */
const plan: { name: string; box: Box; positive: boolean }[] = [];
for (const image of coco.images) {
  if (plan.length >= decisions) break;
  const raccoons = coco.annotations.filter((a) => a.image_id === image.id).map((a) => a.bbox);
  for (const box of raccoons) plan.push({ name: image.file_name, box, positive: true });
  for (const box of rejectedRegions(image.width, image.height, raccoons)) plan.push({ name: image.file_name, box, positive: false });
}
plan.length = Math.min(plan.length, decisions);
const photos = [...new Set(plan.map((d) => d.name))];
const url = (name: string) => `/bench-input/raccoon/${name}`;

const repoRoot = process.cwd();
if (!values['no-build']) buildBenchPage(repoRoot);
const served = await serveBenchPage(repoRoot, Number(values.port));
const { chromiumLaunch } = await import('../playwright.config');
const browser = await chromium.launch({ ...chromiumLaunch, headless: true });
const loadBefore = loadavg()[0];
try {
  const context = await browser.newContext();
  const routes = Object.fromEntries(photos.map((name) => [url(name), { body: readFileSync(join(root, 'images', name)), contentType: 'image/jpeg' }]));
  const page = await openBenchPage(context, served.base, routes, log);
  const prefetch = !values['no-prefetch'];
  const thinkMs = Number(values['think-ms']);
  const { backend } = await page.evaluate((p) => window.maskwrightBench.learn.start(p), prefetch);
  log(`engine: ${backend}; ${plan.length} decisions on ${photos.length} photos`);
  const samples: (LearnStepSample & { photo: string; positive: boolean; firstOnPhoto: boolean })[] = [];
  const opened = new Set<string>();
  const clickMs: number[] = [];
  /** The first click on each photo after the first: the one the background detector runs must not slow. */
  const firstClickMs: number[] = [];
  /** CPU time of the whole process tree (Chromium's processes and workers) across the decisions, in 10 ms ticks. */
  let stepsCpuMs = 0;
  for (const decision of plan) {
    const firstOnPhoto = !opened.has(decision.name);
    if (firstOnPhoto) {
      const { embedMs } = await page.evaluate((u) => window.maskwrightBench.learn.open(u), url(decision.name));
      opened.add(decision.name);
      const [x, y, w, h] = decision.box;
      const clicks = await page.evaluate(({ u, point, ms }) => window.maskwrightBench.learn.clicks(u, point, ms), { u: url(decision.name), point: { x: x + w / 2, y: y + h / 2 }, ms: thinkMs });
      clickMs.push(...clicks);
      if (opened.size > 1 && clicks.length) firstClickMs.push(clicks[0]);
      log(`${decision.name}: embedded in ${embedMs.toFixed(0)} ms; ${clicks.length} clicks while looking: ${clicks.map((c) => c.toFixed(0)).join(', ')} ms`);
    }
    const cpuBefore = processTreeCpuMs();
    const sample = await page.evaluate(({ u, box, positive }) => window.maskwrightBench.learn.decide(u, box, positive), { u: url(decision.name), box: decision.box, positive: decision.positive });
    const cpuAfter = processTreeCpuMs();
    if (cpuBefore !== undefined && cpuAfter !== undefined) stepsCpuMs += cpuAfter - cpuBefore;
    samples.push({ ...sample, photo: decision.name, positive: decision.positive, firstOnPhoto });
    log(`step ${samples.length}${sample.detectorsPrepared ? ' (detectors prepared)' : ''}: ${sample.stepMs.toFixed(1)} ms (describe ${sample.describeMs.toFixed(1)}, photo context ${sample.workerDetectMs.toFixed(1)}, pooling ${sample.workerPoolMs.toFixed(1)}, fit ${sample.fitMs.toFixed(1)}; keep ${(sample.storedFormMs + sample.stringifyMs).toFixed(1)} ms, ${sample.storedBytes} B)`);
  }
  const full = await page.evaluate((classes) => window.maskwrightBench.learn.fullCapacity(classes), Number(values.classes));
  const parts = ['stepMs', 'describeMs', 'workerDetectMs', 'workerPoolMs', 'fitMs', 'storedFormMs', 'stringifyMs', 'mainThreadMs'] as const;
  const summary = (rows: readonly LearnStepSample[]) =>
    Object.fromEntries(
      parts.map((p) => {
        return [p, spread(rows.map((s) => s[p]))];
      }),
    );
  const result = {
    browser: 'chromium',
    backend,
    decisions: plan.length,
    photos: photos.length,
    prefetch,
    thinkMs,
    load: { before: loadBefore, after: loadavg()[0] },
    all: summary(samples),
    /** The first decision on a photo pays that photo's detector runs; the others find them done (if cached). */
    firstOnPhoto: summary(samples.filter((s) => s.firstOnPhoto)),
    laterOnPhoto: summary(samples.filter((s) => !s.firstOnPhoto)),
    /** Clicks while the person looks at a newly opened photo (the background detector runs, with prefetch). */
    clicks: { n: clickMs.length, ...spread(clickMs) },
    firstClickOnLaterPhotos: { n: firstClickMs.length, ...spread(firstClickMs) },
    /** CPU of every process of the run while the decisions ran (a background run still under way included), and their wall time. */
    decisionsCpuMs: round(stepsCpuMs),
    decisionsWallMs: round(samples.reduce((sum, s) => sum + s.stepMs + s.storedFormMs + s.stringifyMs, 0)),
    fullCapacity: { classes: Number(values.classes), ...full, storedMiB: round(full.storedBytes / 2 ** 20) },
    samples,
  };
  mkdirSync('bench/results', { recursive: true });
  writeFileSync('bench/results/learn-step.json', JSON.stringify(result, null, 2));
  console.log(JSON.stringify({ ...result, samples: undefined }, null, 2));
  log(
    `step p95 ${result.all.stepMs.p95} ms (p50 ${result.all.stepMs.p50}, ${samples.length} steps); first click on photos 2–${photos.length} median ${result.firstClickOnLaterPhotos.p50} ms; CPU during the decisions ${result.decisionsCpuMs} ms; load ${result.load.before.toFixed(1)}→${result.load.after.toFixed(1)}`,
  );
} finally {
  await browser.close();
  await served.stop();
}

function spread(values: readonly number[]): { p50: number; p95: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: round(percentile(sorted, 50)), p95: round(percentile(sorted, 95)), max: round(sorted[sorted.length - 1] ?? NaN) };
}

function round(x: number): number {
  return Math.round(x * 10) / 10;
}
