/**
 * `npm run eval -- --dataset coco [--data DIR] [--out FILE] [--limit N] [--split all|fit|held-out] [--uncalibrated] [--threads N] [--pool-min-score S]`
 * (also runnable directly: `npx tsx bench/evalCoco/main.ts [options]`)
 *
 * Text prompts on COCO instances: every image is asked all 80 class names as prompts, and the
 * answers are scored against all of the image's instance masks (ground truth rasterized here).
 * Reported per prompt and overall: recall and precision at mask IoU 0.5 at the service's operating
 * point, mask AP50 and mAP (COCO 0.5:0.95) from the full ranked list, the share of prompts answered
 * "unknown", and the same for the detector's raw boxes (as filled rectangles) as the baseline.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { evalCommandLine } from './commandLine';
import { decodeImage } from '../../src/engine/adapters/nodeImage';
import { loadNodeEngine } from '../../src/engine/adapters/ortNode';
import { loadNodeDetectors, loadNodeOpenImagesDetector } from '../../src/engine/adapters/textNode';
import type { SegmentationEngine } from '../../src/engine/engine';
import { COCO_CLASSES, type CocoClass } from '../../src/engine/text/cocoClasses';
import { imageContentKey } from '../../src/engine/hash';
import type { ConceptDetector, DetectOptions, Detection } from '../../src/engine/text/detector';
import { DEFAULT_MIN_DETECTOR_SCORE, TextPipeline, type TextPipelineOptions } from '../../src/engine/text/pipeline';
import { detectionRule, SINGLE_PASS, type DetectionPasses, type DetectorFusion } from '../text/passes';
import { detectEach, mergeDetections } from '../../src/engine/text/pool';
import { interpretPrompt } from '../../src/engine/text/promptParser';
import { averagePrecision, boxRegion, countAt, IOU_THRESHOLDS, matchImage, mean, reliability, toRegion, type GroundTruthInstance, type ImageMatch, type ScoredInstance } from './metrics';
import { rasterizeSegmentation, type CocoSegmentation } from './rasterize';

interface CocoInstances {
  images: { id: number; file_name: string; width: number; height: number }[];
  annotations: { image_id: number; category_id: number; iscrowd: number; segmentation: CocoSegmentation; bbox: number[] }[];
  categories: { id: number; name: string; supercategory: string }[];
}

const USAGE = `usage: npm run eval -- --dataset coco [--mode text|everything] [options]
  --mode M               text (default): the 80 class names as text prompts (options below);
                         everything: segment everything, class-agnostic AR@100 (--mode everything --help);
                         exemplar: find the other instances of a class from one (--mode exemplar --help);
                         learn: a labeller that learns from a simulated reviewer (--mode learn --help)
  --data DIR             COCO folder with images/ and instances.json (default ../shared/eval/coco-tiny)
  --out FILE             results JSON (default bench/results/evalCoco.json)
  --limit N              first N images only (sorted by file name)
  --split all|fit|held-out  images at even (fit) or odd (held-out) positions in file-name order;
                         the score calibration is fitted on the fit half only (default all)
  --uncalibrated         raw detector scores (what fitCalibration.ts reads)
  --boxes-only           detectors only, judged by box IoU against COCO's boxes (no SAM: fast)
  --threads N            onnxruntime intra-op threads (default: all cores)
  --pool-min-score S     detections kept for the AP ranking (default 0.05)
  --operating-score S    detector score for recall/precision (default ${DEFAULT_MIN_DETECTOR_SCORE}, the service's)
  --calibration JSON     per-detector Platt table as fitCalibration.ts prints it (default: the service's)
  --passes LIST          each detector's looks at the photo: single, or mirror and/or tiles joined by +
                         (default: the service's, ${passesName(SINGLE_PASS)}; bench/text/passes.ts)
  --pass-fusion F        suppress|wbf: how the passes of one detector fuse (default ${SINGLE_PASS.fusion})
  --detector-fusion F    suppress|wbf: how the detectors' boxes fuse (default suppress, the service's)
  --open-images          also pool the Open Images SSD on the COCO classes it shares (person, car, cup …);
                         the service asks it only for the concepts COCO lacks
  --only NAME            pool only this detector (centernet, coco-ssd, open-images-ssd): its answers alone,
                         e.g. to fit its calibration without the others' duplicates removed`;

const commandLine = evalCommandLine('eval coco', USAGE, {
  'pool-min-score': { type: 'string' },
  'operating-score': { type: 'string' },
  split: { type: 'string' },
  uncalibrated: { type: 'boolean' },
  'boxes-only': { type: 'boolean' },
  passes: { type: 'string' },
  calibration: { type: 'string' },
  'pass-fusion': { type: 'string' },
  'detector-fusion': { type: 'string' },
  'open-images': { type: 'boolean' },
  only: { type: 'string' },
});
const fail: (message: string) => never = commandLine.fail;

function passesName(p: DetectionPasses): string {
  return [p.mirror && 'mirror', p.tiles && 'tiles'].filter(Boolean).join('+') || 'single';
}

function parsePasses(list: string | undefined, fusion: string | undefined): DetectionPasses {
  const names = list === undefined ? passesName(SINGLE_PASS).split('+') : list.split('+');
  if (!names.every((n) => ['single', 'mirror', 'tiles'].includes(n))) fail('--passes: single, mirror, tiles or mirror+tiles');
  const f = fusion ?? SINGLE_PASS.fusion;
  if (f !== 'suppress' && f !== 'wbf') fail('--pass-fusion must be suppress or wbf');
  return { mirror: names.includes('mirror'), tiles: names.includes('tiles'), fusion: f };
}

interface Method {
  /** Per class, per image. */
  readonly pool: Map<CocoClass, ImageMatch[]>;
  readonly operating: Map<CocoClass, ImageMatch[]>;
}

function newMethod(): Method {
  return { pool: new Map(COCO_CLASSES.map((c) => [c, []])), operating: new Map(COCO_CLASSES.map((c) => [c, []])) };
}

interface ClassRow {
  name: CocoClass;
  instances: number;
  recall?: number;
  precision?: number;
  ap50?: number;
  ap?: number;
}

function rows(method: Method, gtCounts: Map<CocoClass, number>): ClassRow[] {
  return COCO_CLASSES.map((name) => {
    const aps = averagePrecision(method.pool.get(name)!);
    const { tp, fp, positives } = countAt(method.operating.get(name)!);
    return {
      name,
      instances: gtCounts.get(name) ?? 0,
      recall: positives ? tp / positives : undefined,
      precision: tp + fp ? tp / (tp + fp) : undefined,
      ap50: aps[0],
      ap: mean(aps),
    };
  });
}

function summary(method: Method, classRows: ClassRow[]) {
  // Over every class's images at once: the sums over classes.
  const { tp, fp, positives } = countAt([...method.operating.values()].flat());
  const apByThreshold = IOU_THRESHOLDS.map((_, ti) => mean(COCO_CLASSES.map((n) => averagePrecision(method.pool.get(n)!)[ti])));
  return {
    /** Over all instances (micro). */
    recall50: positives ? tp / positives : undefined,
    precision50: tp + fp ? tp / (tp + fp) : undefined,
    /** Mean over prompts (macro), prompts with ground truth / with answers. */
    meanPromptRecall50: mean(classRows.map((r) => r.recall)),
    meanPromptPrecision50: mean(classRows.map((r) => r.precision)),
    ap50: apByThreshold[0],
    ap75: apByThreshold[5],
    mAP: mean(apByThreshold),
    truePositives: tp,
    falsePositives: fp,
    instances: positives,
  };
}

const pct = (v: number | undefined): string => (v === undefined ? '–' : (v * 100).toFixed(1));

export async function runCocoEval(argv: readonly string[]): Promise<void> {
  // Other questions asked of the same photos have their own runners.
  const mode = argv.find((a, i) => argv[i - 1] === '--mode') ?? argv.find((a) => a.startsWith('--mode='))?.slice('--mode='.length);
  if (mode === 'everything') return (await import('./everything')).runEverythingEval(argv);
  if (mode === 'exemplar') return (await import('./exemplar')).runExemplarEval(argv);
  if (mode === 'learn') return (await import('./learn')).runLearnEval(argv);
  if (mode !== undefined && mode !== 'text') fail(`unknown --mode "${mode}" (text, everything, exemplar, learn)`);
  const values = commandLine.parse(argv);
  if (!values) return;
  const dataDir = resolve(values.data ?? '../shared/eval/coco-tiny');
  const out = resolve(values.out ?? 'bench/results/evalCoco.json');
  const poolMinScore = values['pool-min-score'] === undefined ? 0.05 : Number(values['pool-min-score']);
  const operatingScore = values['operating-score'] === undefined ? DEFAULT_MIN_DETECTOR_SCORE : Number(values['operating-score']);
  if (!(poolMinScore > 0 && poolMinScore <= operatingScore)) fail('--pool-min-score must be in (0, --operating-score]');
  const threads = values.threads === undefined ? undefined : Number(values.threads);

  const instances = await commandLine.readInstances<CocoInstances>(dataDir);
  const classOfCategory = new Map<number, CocoClass>();
  for (const c of instances.categories) {
    if (!(COCO_CLASSES as readonly string[]).includes(c.name)) fail(`category "${c.name}" is not a COCO-80 class`);
    classOfCategory.set(c.id, c.name as CocoClass);
  }
  let images = [...instances.images].sort((a, b) => a.file_name.localeCompare(b.file_name));
  const split = values.split ?? 'all';
  if (!['all', 'fit', 'held-out'].includes(split)) fail('--split must be all, fit or held-out');
  if (split !== 'all') images = images.filter((_, k) => (k % 2 === 0) === (split === 'fit'));
  if (values.limit) images = images.slice(0, Number(values.limit));

  // Prompts: the 80 class names; and, as a word list we did not write, COCO's 12 supercategory names.
  const prompts = [...COCO_CLASSES];
  const supercategories = [...new Set(instances.categories.map((c) => c.supercategory))].sort();
  const unknownClassPrompts = prompts.filter((p) => interpretPrompt(p).classes.length === 0);
  const unknownSupercategories = supercategories.filter((p) => interpretPrompt(p).classes.length === 0);

  const engine = await loadNodeEngine({ threads });
  // The COCO detectors only: the others have no class to be scored on here.
  // Memoized: the pooled and the single-detector pipelines ask each detector the same looks at the same photo.
  const cocoDetectors = (await loadNodeDetectors({ threads })).filter((d) => d.vocabulary.some((c) => (COCO_CLASSES as readonly string[]).includes(c)));
  if (values['open-images']) cocoDetectors.push(await loadNodeOpenImagesDetector({ threads, answers: 'coco-shared' }));
  const only = values.only;
  if (only !== undefined && !cocoDetectors.some((d) => d.name === only)) fail(`--only: no detector ${only} (${cocoDetectors.map((d) => d.name).join(', ')})`);
  const detectors = cocoDetectors.filter((d) => only === undefined || d.name === only).map(memoizedDetect);
  const detectorFusion = (values['detector-fusion'] ?? 'suppress') as DetectorFusion;
  if (detectorFusion !== 'suppress' && detectorFusion !== 'wbf') fail('--detector-fusion must be suppress or wbf');
  const passes = parsePasses(values.passes, values['pass-fusion']);
  const calibration = values.uncalibrated ? {} : values.calibration ? (JSON.parse(values.calibration) as TextPipelineOptions['calibration']) : undefined;
  const detection = detectionRule(passes, detectorFusion);
  const pipelineOptions: TextPipelineOptions = { calibration, detection };
  // One SAM decoder run per distinct box: the single-detector pipelines ask for boxes the pooled one already decoded.
  const samEngine = memoizedPredict(engine);
  const pipeline = new TextPipeline(samEngine, detectors, pipelineOptions);
  const singles = detectors.map((d) => ({ name: d.name, pipeline: new TextPipeline(samEngine, d, pipelineOptions), method: newMethod(), boxMethod: newMethod() }));
  const pipelineMethod = newMethod();
  const baselineMethod = newMethod();
  const boxMethod = newMethod();
  const answers: { image: string; prompt: string; detector?: string; rawScore: number; score: number; maskScore: number; matched50: boolean; ignored50: boolean }[] = [];
  const gtCounts = new Map<CocoClass, number>();
  const started = Date.now();
  process.stderr.write(`eval coco: ${images.length} images from ${dataDir}; 80 class-name prompts per image; ${engine.backend.name}\n`);

  for (const [i, info] of images.entries()) {
    const image = await decodeImage(await readFile(join(dataDir, 'images', info.file_name)));
    if (image.width !== info.width || image.height !== info.height) fail(`${info.file_name}: size differs from instances.json`);
    const gtByClass = new Map<CocoClass, GroundTruthInstance[]>();
    const gtBoxesByClass = new Map<CocoClass, GroundTruthInstance[]>();
    for (const a of instances.annotations.filter((x) => x.image_id === info.id)) {
      const name = classOfCategory.get(a.category_id)!;
      const region = toRegion(rasterizeSegmentation(a.segmentation, info.width, info.height));
      const crowd = a.iscrowd === 1;
      gtByClass.set(name, [...(gtByClass.get(name) ?? []), { region, crowd }]);
      const [bx, by, bw, bh] = a.bbox;
      const boxGt = { region: boxRegion({ x0: bx, y0: by, x1: bx + bw, y1: by + bh }, info.width, info.height), crowd };
      gtBoxesByClass.set(name, [...(gtBoxesByClass.get(name) ?? []), boxGt]);
      if (!crowd) gtCounts.set(name, (gtCounts.get(name) ?? 0) + 1);
    }

    if (values['boxes-only']) {
      // Detectors only (no SAM): pooled and each alone, judged against COCO's boxes.
      const perDetectorRaw = await detectEach(detectors, image, undefined, detection);
      const mergeOptions = { calibration: pipelineOptions.calibration, fuse: detection.fuse };
      const pooled = mergeDetections(perDetectorRaw, poolMinScore, mergeOptions);
      const perDetector = perDetectorRaw.map((list) => mergeDetections([list], poolMinScore, mergeOptions));
      for (const name of COCO_CLASSES) {
        const gtBoxes = gtBoxesByClass.get(name) ?? [];
        const scored = (list: typeof pooled) => list.filter((d) => d.label === name).map((d) => ({ region: boxRegion(d.box, info.width, info.height), score: d.score, d }));
        const boxes = scored(pooled);
        const match = matchImage(gtBoxes, boxes);
        boxMethod.pool.get(name)!.push(match);
        boxMethod.operating.get(name)!.push(matchImage(gtBoxes, boxes.filter((b) => b.score >= operatingScore)));
        // The pooled answers with their outcomes, as the service reports them: what the calibration is fitted on (fitCalibration.ts).
        [...boxes].sort((a, b) => b.score - a.score).slice(0, match.scores.length).forEach(({ d }, k) =>
          answers.push({ image: info.file_name, prompt: name, detector: d.detector, rawScore: d.rawScore ?? d.score, score: d.score, maskScore: NaN, matched50: match.matched[0][k], ignored50: match.ignored[0][k] }),
        );
        singles.forEach((x, k) => {
          const own = scored(perDetector[k]);
          x.boxMethod.pool.get(name)!.push(matchImage(gtBoxes, own));
          x.boxMethod.operating.get(name)!.push(matchImage(gtBoxes, own.filter((b) => b.score >= operatingScore)));
        });
      }
      process.stderr.write(`[${i + 1}/${images.length}] ${info.file_name} ${pooled.length} pooled boxes (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
      continue;
    }
    const run = await pipeline.run(image, prompts, info.file_name, { minDetectorScore: poolMinScore });
    for (const single of singles) {
      const singleRun = await single.pipeline.run(image, prompts, info.file_name, { minDetectorScore: poolMinScore });
      for (const result of singleRun.results) {
        const name = cocoPromptClass(result);
        if (!name) continue;
        const all = result.instances.map((t) => ({ region: toRegion(t.mask), score: t.confidence, detectorScore: t.detectorScore }));
        const gts = gtByClass.get(name) ?? [];
        single.method.pool.get(name)!.push(matchImage(gts, all));
        single.method.operating.get(name)!.push(matchImage(gts, all.filter((d) => d.detectorScore >= operatingScore)));
      }
    }
    samEngine.forgetBoxes();
    engine.forget();
    for (const result of run.results) {
      const name = cocoPromptClass(result);
      if (!name) continue;
      const gts = gtByClass.get(name) ?? [];
      const all: (ScoredInstance & { detectorScore: number })[] = result.instances.map((t) => ({
        region: toRegion(t.mask),
        score: t.confidence,
        detectorScore: t.detectorScore,
      }));
      const poolMatch = matchImage(gts, all);
      pipelineMethod.pool.get(name)!.push(poolMatch);
      // matchImage ranks by score, stable: the same order here pairs each answer with its outcome.
      const ranked = result.instances.map((t, k) => ({ t, score: all[k].score })).sort((a, b) => b.score - a.score).slice(0, poolMatch.scores.length);
      ranked.forEach(({ t }, k) =>
        answers.push({
          image: info.file_name,
          prompt: name,
          detector: t.detector,
          rawScore: t.rawDetectorScore ?? t.detectorScore,
          score: t.confidence,
          maskScore: t.maskScore,
          matched50: poolMatch.matched[0][k],
          ignored50: poolMatch.ignored[0][k],
        }),
      );
      pipelineMethod.operating.get(name)!.push(matchImage(gts, all.filter((d) => d.detectorScore >= operatingScore)));

      const detections = run.detections.filter((d) => d.label === name);
      const boxes = detections.map((d) => ({ region: boxRegion(d.box, info.width, info.height), score: d.score }));
      baselineMethod.pool.get(name)!.push(matchImage(gts, boxes));
      baselineMethod.operating.get(name)!.push(matchImage(gts, boxes.filter((b) => b.score >= operatingScore)));
      // The detector judged as a box detector (box IoU against COCO's boxes), to set beside published numbers.
      const gtBoxes = gtBoxesByClass.get(name) ?? [];
      boxMethod.pool.get(name)!.push(matchImage(gtBoxes, boxes));
      boxMethod.operating.get(name)!.push(matchImage(gtBoxes, boxes.filter((b) => b.score >= operatingScore)));
    }
    const found = run.results.reduce((s, r) => s + r.instances.filter((t) => t.detectorScore >= operatingScore).length, 0);
    const gtHere = [...gtByClass.values()].reduce((s, g) => s + g.filter((x) => !x.crowd).length, 0);
    process.stderr.write(
      `[${i + 1}/${images.length}] ${info.file_name} ${gtHere} instances, ${found} answered at ≥${operatingScore}, ` +
        `${run.detections.length} in the AP pool (det ${run.timings.detectorMs.toFixed(0)} ms, enc ${run.timings.embedMs.toFixed(0)} ms, ` +
        `dec ${run.timings.decoderMs.toFixed(0)} ms) (${((Date.now() - started) / 1000).toFixed(0)} s)\n`,
    );
  }
  await engine.release();
  for (const detector of detectors) await detector.release();

  const pipelineRows = rows(pipelineMethod, gtCounts);
  const baselineRows = rows(baselineMethod, gtCounts);
  const boxRows = rows(boxMethod, gtCounts);
  const result = {
    dataset: dataDir,
    split,
    calibrated: !values.uncalibrated,
    images: images.length,
    commit: (() => {
      try {
        return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
      } catch {
        return undefined;
      }
    })(),
    settings: {
      prompts: 'the 80 COCO class names, each asked on every image',
      operatingDetectorScore: operatingScore,
      apPoolMinDetectorScore: poolMinScore,
      passes,
      detectorFusion,
      pipelineScore: 'confidence = calibrated detector score (src/engine/text/calibration.ts)',
      baseline: "the detector's boxes as filled rectangles, scored by the detector score",
      detectorBoxes: "the detector's boxes against COCO's boxes (box IoU)",
    },
    unknown: {
      classNamePrompts: { asked: prompts.length, unknown: unknownClassPrompts.length, share: unknownClassPrompts.length / prompts.length },
      supercategoryPrompts: {
        asked: supercategories.length,
        unknown: unknownSupercategories.length,
        share: unknownSupercategories.length / supercategories.length,
        unknownWords: unknownSupercategories,
      },
    },
    summary: {
      pipeline: summary(pipelineMethod, pipelineRows),
      ...Object.fromEntries(singles.map((x) => [`only ${x.name}`, summary(x.method, rows(x.method, gtCounts))])),
      ...Object.fromEntries(singles.map((x) => [`only ${x.name} boxes`, summary(x.boxMethod, rows(x.boxMethod, gtCounts))])),
      baselineBoxMasks: summary(baselineMethod, baselineRows),
      detectorBoxes: summary(boxMethod, boxRows),
    },
    /** Confidence as a probability of a mask IoU ≥ 0.5 match, over the whole AP pool (every confidence). */
    calibration: reliability([...pipelineMethod.pool.values()].flat()),
    /** Every answer in the pooled AP pool with its outcome (what fitCalibration.ts reads). */
    answers,
    perPrompt: pipelineRows.map((r, k) => ({ prompt: r.name, instances: r.instances, pipeline: r, baselineBoxMasks: baselineRows[k], detectorBoxes: boxRows[k] })),
  };

  const s = result.summary;
  const line = (label: string, x: ReturnType<typeof summary>) =>
    `| ${label} | ${pct(x.recall50)} | ${pct(x.precision50)} | ${pct(x.meanPromptRecall50)} | ${pct(x.meanPromptPrecision50)} | ${pct(x.ap50)} | ${pct(x.ap75)} | ${pct(x.mAP)} |`;
  const table = [
    `COCO text prompts, ${images.length} images, ${s.pipeline.instances} instances; operating point: detector score ≥ ${operatingScore}`,
    '',
    '| method | recall@0.5 | precision@0.5 | mean prompt recall | mean prompt precision | AP50 | AP75 | mAP |',
    '|---|---|---|---|---|---|---|---|',
    line(`pooled detectors (${detectors.map((d) => d.name).join(' + ')}) box → SAM mask (ours)`, s.pipeline),
    ...singles.map((x) => line(`only ${x.name} box → SAM mask`, summary(x.method, rows(x.method, gtCounts)))),
    line('detector box as mask (baseline)', s.baselineBoxMasks),
    line(values['boxes-only'] ? 'pooled detector boxes, box IoU' : 'detector boxes, box IoU', s.detectorBoxes),
    ...singles.map((x) => line(`only ${x.name} boxes, box IoU`, summary(x.boxMethod, rows(x.boxMethod, gtCounts)))),
    '',
    `prompts answered "unknown": class names ${result.unknown.classNamePrompts.unknown}/${prompts.length}; ` +
      `COCO supercategory names ${unknownSupercategories.length}/${supercategories.length}` +
      (unknownSupercategories.length ? ` (${unknownSupercategories.join(', ')})` : ''),
    '',
    `calibration of the confidence (calibrated detector score) against matching an object at mask IoU 0.5: ` +
      `ECE ${pct(result.calibration.ece)} % over ${result.calibration.answers} answers`,
    '',
    '| confidence | answers | mean confidence | precision@0.5 |',
    '|---|---|---|---|',
    ...result.calibration.bins.filter((b) => b.count > 0).map((b) => `| ${b.from.toFixed(1)}–${b.to.toFixed(1)} | ${b.count} | ${pct(b.meanConfidence)} | ${pct(b.precision)} |`),
    '',
    '| prompt | instances | recall@0.5 | precision@0.5 | AP50 | baseline recall | baseline precision | baseline AP50 |',
    '|---|---|---|---|---|---|---|---|',
    ...pipelineRows
      .map((r, k) => ({ r, b: baselineRows[k] }))
      .filter(({ r }) => r.instances > 0 || r.precision !== undefined)
      .map(({ r, b }) => `| ${r.name} | ${r.instances} | ${pct(r.recall)} | ${pct(r.precision)} | ${pct(r.ap50)} | ${pct(b.recall)} | ${pct(b.precision)} | ${pct(b.ap50)} |`),
  ].join('\n');
  process.stdout.write(`${table}\n`);
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, `${JSON.stringify(result, null, 2)}\n`);
  process.stderr.write(`eval coco: wrote ${out} (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
}

/** The COCO class a prompt asked for by its own name (the eval's prompts are the 80 class names). */
function cocoPromptClass(result: { text: string; interpretation: { classes: readonly string[] } }): CocoClass | undefined {
  const [only, ...rest] = result.interpretation.classes;
  return rest.length === 0 && only === result.text && (COCO_CLASSES as readonly string[]).includes(only) ? (only as CocoClass) : undefined;
}

/** The detector with its answer per (photo content, options) remembered (photos are few per run). */
function memoizedDetect(detector: ConceptDetector): ConceptDetector {
  const memo = new Map<string, Promise<Detection[]>>();
  return Object.assign(Object.create(detector) as ConceptDetector, {
    detect(image: Parameters<ConceptDetector['detect']>[0], options?: DetectOptions) {
      const key = `${imageContentKey(image)} ${JSON.stringify(options ?? {})}`;
      // One photo at a time here (a handful of looks each): a small memo is enough.
      if (memo.size > 32) memo.clear();
      let answer = memo.get(key);
      if (!answer) memo.set(key, (answer = detector.detect(image, options)));
      return answer;
    },
  });
}

/** The engine with SAM's answer per (image, box) remembered until `forgetBoxes`. */
function memoizedPredict(engine: SegmentationEngine): SegmentationEngine & { forgetBoxes(): void } {
  const memo = new Map<string, ReturnType<SegmentationEngine['predict']>>();
  return new Proxy(engine, {
    get(target, property, receiver) {
      if (property === 'forgetBoxes') return () => memo.clear();
      if (property === 'predict') {
        return (imageKey: string, prompt: Parameters<SegmentationEngine['predict']>[1], options?: Parameters<SegmentationEngine['predict']>[2]) => {
          const key = JSON.stringify([imageKey, prompt, options]);
          let answer = memo.get(key);
          if (!answer) memo.set(key, (answer = target.predict(imageKey, prompt, options)));
          return answer;
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as SegmentationEngine & { forgetBoxes(): void };
}

if (process.argv[1] && resolve(process.argv[1]).endsWith(join('evalCoco', 'main.ts'))) {
  runCocoEval(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`eval coco: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
