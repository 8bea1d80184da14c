/**
 * `npx tsx bench/textBench.ts [--image FILE] [--runs 5] [--prompt cup] [--open-images-prompt shoes] [--browser [--port 4391] [--no-build]]`
 *
 * Text prompt speed, detectors and SAM warm, the embedding cached (as in the studio after the first
 * click): the pooled detectors (CenterNet + COCO-SSD) with one look at the photo (before issue 17's
 * third pass, and still the service's default), with the mirrored photo too, and with the mirrored
 * photo and 2×2 tiles as well (bench/text/passes.ts, plugged into the text pipeline through its
 * detection rule hook); and the Open Images SSD alone, for a prompt only it answers
 * (--open-images-prompt); same photo scaled to 1024 px wide, same prompt, alternating. In Node
 * (onnxruntime-node) by default; with --browser in headless Chromium through the studio's Local
 * engine (our Web Worker, onnxruntime-web), one worker per variant — there only the variants the
 * service runs (one look per detector), since the worker ships no other. Prints p50 per stage and
 * writes bench/results/text-bench.json (text-bench-browser.json).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import sharp from 'sharp';
import { buildBenchPage, openBenchPage, serveBenchPage } from './benchPage';
import { loadNodeEngine } from '../src/engine/adapters/ortNode';
import { loadNodeDetectors } from '../src/engine/adapters/textNode';
import type { DetectionRule } from '../src/engine/text/pool';
import { TextPipeline } from '../src/engine/text/pipeline';
import { detectionRule } from './text/passes';
import { sharedPath } from '../test/support/sharedData';

const { values } = parseArgs({
  options: {
    image: { type: 'string', default: sharedPath('samples/coffee.png') },
    runs: { type: 'string', default: '5' },
    prompt: { type: 'string', default: 'cup' },
    'open-images-prompt': { type: 'string', default: 'shoes' },
    threads: { type: 'string' },
    browser: { type: 'boolean' },
    port: { type: 'string', default: '4391' },
    'no-build': { type: 'boolean' },
  },
});

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

interface Row {
  variant: string;
  detectorsP50Ms: number;
  samDecoderP50Ms: number;
  totalP50Ms: number;
  instances: number;
}

function report(title: string, rows: Row[], file: string, extra: Record<string, unknown>): void {
  const table = [
    title,
    '',
    '| variant | detectors p50 ms | SAM decoder p50 ms | total p50 ms | instances |',
    '|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.variant} | ${r.detectorsP50Ms.toFixed(0)} | ${r.samDecoderP50Ms.toFixed(0)} | ${r.totalP50Ms.toFixed(0)} | ${r.instances} |`),
  ].join('\n');
  process.stdout.write(`${table}\n`);
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(join('bench/results', file), `${JSON.stringify({ ...extra, rows }, null, 2)}\n`);
}

const POOLED = ['centernet', 'coco-ssd'] as const;
/** `detection` left out: the service's own looks (one per detector). */
const ALL_VARIANTS: readonly { name: string; detectors: readonly string[]; detection?: DetectionRule; prompt?: string }[] = [
  { name: 'pooled, one look (the service)', detectors: POOLED },
  { name: 'pooled, + mirrored photo', detectors: POOLED, detection: detectionRule({ mirror: true, tiles: false, fusion: 'suppress' }) },
  { name: 'pooled, + mirrored photo + 2×2 tiles, WBF', detectors: POOLED, detection: detectionRule({ mirror: true, tiles: true, fusion: 'wbf' }) },
  { name: `Open Images SSD, "${values['open-images-prompt']}"`, detectors: ['open-images-ssd'], prompt: values['open-images-prompt'] },
];
const VARIANTS = values.browser ? ALL_VARIANTS.filter((v) => !v.detection) : ALL_VARIANTS;
const promptOf = (k: number): string => VARIANTS[k].prompt ?? values.prompt!;

interface Samples {
  detectorMs: number[];
  decoderMs: number[];
  totalMs: number[];
  instances: number;
}

/** One row per variant (VARIANTS' order): p50 of each stage. */
function rowsOf(samples: readonly Samples[]): Row[] {
  return VARIANTS.map((v, k) => ({
    variant: v.name,
    detectorsP50Ms: median(samples[k].detectorMs),
    samDecoderP50Ms: median(samples[k].decoderMs),
    totalP50Ms: median(samples[k].totalMs),
    instances: samples[k].instances,
  }));
}

/** The same in Chromium: the studio's Local engine, one worker per variant, taking turns. */
async function browserMain(): Promise<void> {
  const log = (line: string): void => void process.stderr.write(`[text-bench] ${line}\n`);
  const repoRoot = process.cwd();
  if (!values['no-build']) buildBenchPage(repoRoot);
  const served = await serveBenchPage(repoRoot, Number(values.port));
  const { chromiumLaunch } = await import('../playwright.config');
  const chromiumProcess = await chromium.launch({ ...chromiumLaunch, headless: true });
  try {
    const context = await chromiumProcess.newContext();
    const imageUrl = '/bench-input/text-photo';
    const body = readFileSync(values.image!);
    const page = await openBenchPage(context, served.base, { [imageUrl]: { body, contentType: values.image!.endsWith('.png') ? 'image/png' : 'image/jpeg' } }, log);
    let backend = '';
    let size = '';
    for (const [k, v] of VARIANTS.entries()) {
      const started = await page.evaluate((o) => window.maskwrightBench.ours.start(o), { slot: `text${k}`, imageUrl, imageWidth: 1024, textDetectors: [...v.detectors], encoderPrecision: 'int8' as const, decoderPrecision: 'int8' as const });
      backend = `${started.backend.name}, ${started.backend.threads} threads`;
      // Warm: the first prompt downloads the detectors; the pooled one joins once its download is in.
      await page.evaluate(({ slot, prompt }) => window.maskwrightBench.ours.textPrompt(slot, prompt), { slot: `text${k}`, prompt: promptOf(k) });
      const wanted = v.detectors.length;
      await page.waitForFunction(({ slot, wanted }) => window.maskwrightBench.ours.downloadedDetectors(slot).length >= wanted, { slot: `text${k}`, wanted }, { timeout: 300_000 });
      for (let w = 0; w < 2; w++) await page.evaluate(({ slot, prompt }) => window.maskwrightBench.ours.textPrompt(slot, prompt), { slot: `text${k}`, prompt: promptOf(k) });
      log(`${v.name}: warm`);
    }
    const samples = VARIANTS.map(() => ({ detectorMs: [] as number[], decoderMs: [] as number[], totalMs: [] as number[], instances: 0 }));
    for (let r = 0; r < Number(values.runs); r++) {
      for (let k = 0; k < VARIANTS.length; k++) {
        const t = await page.evaluate(({ slot, prompt }) => window.maskwrightBench.ours.textPrompt(slot, prompt), { slot: `text${k}`, prompt: promptOf(k) });
        samples[k].detectorMs.push(t.detectorMs);
        samples[k].decoderMs.push(t.decoderMs);
        samples[k].totalMs.push(t.totalMs);
        samples[k].instances = t.found;
        size = size || 'scaled to 1024 px wide';
      }
    }
    const rows = rowsOf(samples);
    report(`Text prompt "${values.prompt}" in Chromium (Local engine, int8 SAM), photo ${size}, embedding cached, detectors warm, ${values.runs} runs each, ${backend}`, rows, 'text-bench-browser.json', { image: values.image, backend });
  } finally {
    await chromiumProcess.close();
    await served.stop();
  }
}

async function main(): Promise<void> {
  if (values.browser) return browserMain();
  const { data, info } = await sharp(readFileSync(values.image!)).resize({ width: 1024 }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const image = { width: info.width, height: info.height, data: new Uint8Array(data) };
  const threads = values.threads ? Number(values.threads) : undefined;
  const engine = await loadNodeEngine({ threads });
  const detectors = await loadNodeDetectors({ threads });
  const variants = VARIANTS.map((v) => ({ name: v.name, pipeline: new TextPipeline(engine, detectors.filter((d) => v.detectors.includes(d.name)), { detection: v.detection }) }));
  await engine.embed(image, 'text-bench');
  for (const [k, v] of variants.entries()) await v.pipeline.run(image, [promptOf(k)], 'text-bench'); // warm-up
  const samples = variants.map(() => ({ detectorMs: [] as number[], decoderMs: [] as number[], totalMs: [] as number[], instances: 0 }));
  for (let r = 0; r < Number(values.runs); r++) {
    for (const [k, v] of variants.entries()) {
      const { timings, results } = await v.pipeline.run(image, [promptOf(k)], 'text-bench');
      samples[k].detectorMs.push(timings.detectorMs);
      samples[k].decoderMs.push(timings.decoderMs);
      samples[k].totalMs.push(timings.totalMs);
      samples[k].instances = results[0].instances.length;
    }
  }
  const rows = rowsOf(samples);
  report(`Text prompt "${values.prompt}" on ${image.width}×${image.height}, embedding cached, ${values.runs} runs each, ${engine.backend.name}`, rows, 'text-bench.json', {
    image: values.image,
    width: image.width,
    height: image.height,
  });
  await engine.release();
  for (const d of detectors) await d.release();
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
