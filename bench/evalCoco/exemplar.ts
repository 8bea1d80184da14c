/**
 * `npm run eval -- --dataset coco --mode exemplar [--data DIR] [--out FILE] [--limit N] [--every N] [--threads N]`
 *
 * Label a class from one example: for every image and class with at least 3 (non-crowd) instances,
 * the largest instance is given to the exemplar rule (src/engine/text/exemplar.ts) as the example and
 * the others are to be found (mask IoU ≥ 0.5, COCOeval's greedy matching). Reported: recall and
 * precision of what the rule returns (its operating point), AP50 over its ranked answers, all
 * (image, class) cases pooled, and the wall-clock time per case (the photo's embedding not counted).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { evalCommandLine } from './commandLine';
import { decodeImage } from '../../src/engine/adapters/nodeImage';
import { loadNodeEngine } from '../../src/engine/adapters/ortNode';
import { loadNodeDetectors } from '../../src/engine/adapters/textNode';
import { EXEMPLAR_RULES, findByExample, type ExemplarRule } from '../../src/engine/text/exemplar';
import { defaultModelDir } from '../../src/engine/adapters/ortNode';
import { samFiles } from '../../src/engine/catalog';
import { diskEmbeddingStore } from '../eval/embeddingStore';
import { gitCommit, groundTruthOf, selectImages, type CocoInstancesFile } from './everything';
import { averagePrecision, countAt, matchImage, toRegion, type ImageMatch } from './metrics';

export const MIN_INSTANCES = 3;

const USAGE = `usage: npm run eval -- --dataset coco --mode exemplar [options]
  --data DIR       COCO folder with images/ and instances.json (default ../shared/eval/coco-tiny)
  --out FILE       results JSON (default bench/results/evalExemplar.json)
  --rules LIST     exemplar rules, comma-separated (default ${EXEMPLAR_RULES.join(',')}; the first is reported as "exemplar",
                   "peaks" — find-similar before issue 26 — as "baseline")
  --limit N        first N images only (sorted by file name)
  --every N        every Nth image
  --threads N      onnxruntime intra-op threads (default: all cores)
  --examples N     the N largest instances are the examples (default 1; at most ${MIN_INSTANCES - 1}, so one is left to find)
  --min-detector-score P  'detected': the calibrated score a detection needs to be proposed (default the text pipeline's)
  --no-embedding-cache  run the encoder on every photo`;

const commandLine = evalCommandLine('eval coco exemplar', USAGE, {
  rules: { type: 'string' },
  every: { type: 'string' },
  'min-detector-score': { type: 'string' },
  'no-embedding-cache': { type: 'boolean' },
  examples: { type: 'string' },
});
const fail: (message: string) => never = commandLine.fail;

const mean = (values: readonly number[]): number | undefined => (values.length ? values.reduce((s, v) => s + v, 0) / values.length : undefined);

export async function runExemplarEval(argv: readonly string[]): Promise<void> {
  const values = commandLine.parse(argv);
  if (!values) return;
  const dataDir = resolve(values.data ?? '../shared/eval/coco-tiny');
  const out = resolve(values.out ?? 'bench/results/evalExemplar.json');
  const rules = (values.rules ?? EXEMPLAR_RULES.join(',')).split(',') as ExemplarRule[];
  for (const r of rules) if (!EXEMPLAR_RULES.includes(r)) fail(`unknown rule "${r}" (${EXEMPLAR_RULES.join(', ')})`);
  const threads = values.threads === undefined ? undefined : Number(values.threads);
  const exampleCount = values.examples === undefined ? 1 : Number(values.examples);
  if (!Number.isInteger(exampleCount) || exampleCount < 1 || exampleCount >= MIN_INSTANCES) fail(`--examples must be 1 to ${MIN_INSTANCES - 1}`);
  const instances = await commandLine.readInstances<CocoInstancesFile>(dataDir);
  const images = selectImages(instances.images, values.every ? Number(values.every) : undefined, values.limit ? Number(values.limit) : undefined);
  const className = new Map(instances.categories.map((c) => [c.id, c.name]));

  const embeddingStore = values['no-embedding-cache'] ? undefined : diskEmbeddingStore(join(defaultModelDir(), samFiles().encoder));
  const engine = await loadNodeEngine({ threads, embeddingCacheSize: 1, embeddingStore });
  const detectors = rules.includes('detected') ? await loadNodeDetectors({ threads }) : [];
  const matches = new Map<ExemplarRule, ImageMatch[]>(rules.map((r) => [r, []]));
  /** Wall-clock milliseconds per case (the detectors and decoder runs; the photo's embedding is shared and not counted). */
  const caseMs = new Map<ExemplarRule, number[]>(rules.map((r) => [r, []]));
  /** Every answer with what it was measured on and whether it was right: what a rule's thresholds are chosen from. */
  const answersLog: { rule: string; image: string; class: string; source: string; detectorClass?: string; similarity?: number; detectorScore?: number; maskScore: number; areaRatio: number; confidence: number; right: boolean }[] = [];
  const cases: { image: string; class: string; instances: number; found: Record<string, { tp: number; fp: number; ms: number; classes: string[] }> }[] = [];
  const started = Date.now();
  process.stderr.write(`eval coco exemplar: ${images.length} images from ${dataDir}; rules ${rules.join(', ')}; ${engine.backend.name}\n`);

  for (const [i, info] of images.entries()) {
    const gts = groundTruthOf(instances, info);
    const byClass = new Map<number, typeof gts>();
    for (const g of gts) if (!g.crowd) byClass.set(g.categoryId, [...(byClass.get(g.categoryId) ?? []), g]);
    const asked = [...byClass.entries()].filter(([, list]) => list.length >= MIN_INSTANCES);
    if (asked.length === 0) continue;
    const image = await decodeImage(await readFile(join(dataDir, 'images', info.file_name)));
    const { imageKey } = await engine.embed(image, info.file_name);
    for (const [categoryId, list] of asked) {
      const sorted = [...list].sort((a, b) => b.area - a.area);
      const examples = sorted.slice(0, exampleCount);
      const [example] = examples;
      const others = sorted.slice(exampleCount);
      // The class's crowd regions absorb answers without counting, as in COCOeval.
      const crowd = gts.filter((g) => g.crowd && g.categoryId === categoryId);
      const found: Record<string, { tp: number; fp: number; ms: number; classes: string[] }> = {};
      for (const rule of rules) {
        const t0 = performance.now();
        const report = await findByExample(engine, imageKey, examples.map((e) => e.region.mask), { rule, image, detectors, minDetectorScore: values['min-detector-score'] === undefined ? undefined : Number(values['min-detector-score']) });
        const ms = performance.now() - t0;
        caseMs.get(rule)!.push(ms);
        const answers = report.answers;
        const scored = answers.map((a) => ({ region: toRegion(a.mask), score: a.confidence, a }));
        const match = matchImage([...others, ...crowd], scored, [0.5]);
        // matchImage ranks by score, stably: the same order pairs each answer with its outcome.
        [...scored].sort((x, y) => y.score - x.score).slice(0, match.scores.length).forEach(({ a }, k) => {
          if (match.ignored[0][k]) return;
          answersLog.push({
            rule,
            image: info.file_name,
            class: className.get(categoryId) ?? String(categoryId),
            source: a.source,
            detectorClass: a.detectorClass,
            similarity: a.similarity,
            detectorScore: a.detectorScore,
            maskScore: a.maskScore,
            areaRatio: a.area / example.region.area,
            confidence: a.confidence,
            right: match.matched[0][k],
          });
        });
        matches.get(rule)!.push(match);
        const { tp, fp } = countAt([match]);
        found[rule] = { tp, fp, ms: Math.round(ms), classes: report.classes };
      }
      const name = className.get(categoryId) ?? String(categoryId);
      cases.push({ image: info.file_name, class: name, instances: list.length, found });
      process.stderr.write(
        `[${i + 1}/${images.length}] ${info.file_name} ${name}: ${examples.length} example(s) + ${others.length} to find; ` +
          rules.map((r) => `${r} ${found[r].tp} right, ${found[r].fp} wrong, ${(found[r].ms / 1000).toFixed(1)} s${found[r].classes.length ? ` as ${found[r].classes.join('+')}` : ''}`).join('; ') +
          ` (${((Date.now() - started) / 1000).toFixed(0)} s)\n`,
      );
    }
    engine.forget();
  }
  await engine.release();
  for (const d of detectors) await d.release();

  const summaryOf = (rule: ExemplarRule) => {
    const list = matches.get(rule)!;
    const { tp, fp, positives } = countAt(list);
    return {
      rule,
      recall: positives ? tp / positives : undefined,
      precision: tp + fp ? tp / (tp + fp) : undefined,
      ap50: averagePrecision(list, [0.5])[0],
      truePositives: tp,
      falsePositives: fp,
      toFind: positives,
      cases: list.length,
      msPerCase: mean(caseMs.get(rule)!),
    };
  };
  const result = {
    dataset: dataDir,
    images: images.length,
    commit: gitCommit(),
    settings: { minInstances: MIN_INSTANCES, examples: exampleCount, example: `the ${exampleCount} largest instance(s) of the class in the image`, iou: 0.5 },
    exemplar: summaryOf(rules[0]),
    ...(rules.includes('peaks') ? { baseline: summaryOf('peaks') } : {}),
    rules: Object.fromEntries(rules.map((r) => [r, summaryOf(r)])),
    cases,
    answers: answersLog,
  };
  const pct = (v: number | undefined) => (v === undefined ? '–' : (v * 100).toFixed(1));
  const table = [
    `COCO exemplar, ${cases.length} (image, class) cases with ≥ ${MIN_INSTANCES} instances, ${result.exemplar.toFind} instances to find`,
    '',
    '| rule | recall@0.5 | precision@0.5 | AP50 | right | wrong | ms/case |',
    '|---|---|---|---|---|---|---|',
    ...rules.map((r) => {
      const s = summaryOf(r);
      return `| ${r} | ${pct(s.recall)} | ${pct(s.precision)} | ${pct(s.ap50)} | ${s.truePositives} | ${s.falsePositives} | ${s.msPerCase === undefined ? '–' : Math.round(s.msPerCase)} |`;
    }),
  ].join('\n');
  process.stdout.write(`${table}\n`);
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, `${JSON.stringify(result, null, 2)}\n`);
  process.stderr.write(`eval coco exemplar: wrote ${out} (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
}
