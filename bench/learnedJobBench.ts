/**
 * `npx tsx bench/learnedJobBench.ts [--seed-images 10] [--images 20] [--threads 1] [--out FILE]`
 *
 * What a project's `learned` job proposes (issue 38 item 1) on raccoon photos (`../shared/eval/raccoon`,
 * a class no detector knows): a model taught as the studio teaches it on the first `--seed-images`
 * photos (each raccoon made from its box, regions elsewhere rejected: test/support/learnedRaccoons.ts),
 * then the job's own function (engine/learn/proposeLearned.ts, what the inference worker runs) on the
 * next `--images` photos. No review between photos: this is the job's answer to a model saved once,
 * not the learn eval's session that learns from every photo (npm run eval -- --mode learn).
 *
 * Reports box AP50, recall and precision (box IoU ≥ 0.5, each raccoon matched once, best first)
 * and the Node wall time per photo (segment everything + descriptors + classification + detectors).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { decodeImage } from '../src/engine/adapters/nodeImage';
import { loadNodeEngine } from '../src/engine/adapters/ortNode';
import { loadNodeDetectors } from '../src/engine/adapters/textNode';
import { LearnedClasses } from '../src/engine/learn/learnedClasses';
import { labelsAsClassIds, photoCandidates } from '../src/engine/learn/photoCandidates';
import { classifyCandidates } from '../src/engine/learn/proposeLearned';
import { boxIoU } from '../src/engine/text/detector';
import { averagePrecision } from './evalCoco/learnReplay';
import { gitCommit } from './evalCoco/everything';
import { RACCOON_DIR, raccoonBoxes, raccoonBytes, raccoonModel } from '../test/support/learnedRaccoons';

const { values } = parseArgs({
  options: { 'seed-images': { type: 'string' }, images: { type: 'string' }, threads: { type: 'string' }, out: { type: 'string' } },
  strict: true,
});
const seedCount = Number(values['seed-images'] ?? 10);
const jobCount = Number(values.images ?? 20);
const threads = Number(values.threads ?? 1);
const out = resolve(values.out ?? 'bench/results/learnedJob-raccoon.json');

const names = (JSON.parse(await readFile(join(RACCOON_DIR, 'instances.json'), 'utf8')) as { images: { file_name: string }[] }).images.map((i) => i.file_name).sort();
const seeds = names.slice(0, seedCount);
const photos = names.slice(seedCount, seedCount + jobCount);
const t0 = performance.now();
const state = await raccoonModel(seeds, '1');
const teachMs = performance.now() - t0;
const boxes = await raccoonBoxes();
const engine = await loadNodeEngine({ threads, embeddingCacheSize: 1 });
const detectors = await loadNodeDetectors({ threads });
const model = LearnedClasses.fromJSON({ ...state, examples: [], packedExamples: undefined });

const ranked: { probability: number; truePositive: boolean }[] = [];
const byImage: { image: string; ms: number; proposals: number; raccoons: number; found: number }[] = [];
let raccoons = 0;
for (const [i, name] of photos.entries()) {
  const start = performance.now();
  const image = await decodeImage(await raccoonBytes(name));
  const { imageKey } = await engine.embed(image, name);
  const photo = await photoCandidates(engine, imageKey, image, detectors);
  const candidates = labelsAsClassIds(photo.candidates, { '1': 'raccoon' });
  const found = classifyCandidates(model, candidates, photo.describe(candidates.map((c) => c.mask)));
  const ms = performance.now() - start;
  engine.forget();
  const truth = boxes.get(name) ?? [];
  raccoons += truth.length;
  const taken = new Set<number>();
  for (const proposal of found) {
    let match = -1;
    let best = 0.5;
    truth.forEach((t, k) => {
      const iou = boxIoU(t, proposal.box);
      if (!taken.has(k) && iou >= best) [match, best] = [k, iou];
    });
    if (match >= 0) taken.add(match);
    ranked.push({ probability: proposal.probability, truePositive: match >= 0 });
  }
  byImage.push({ image: name, ms, proposals: found.length, raccoons: truth.length, found: taken.size });
  process.stderr.write(`[${i + 1}/${photos.length}] ${name}: ${found.length} proposals, ${taken.size}/${truth.length} raccoons (${ms.toFixed(0)} ms)\n`);
}
await engine.release();
for (const d of detectors) await d.release();

const truePositives = ranked.filter((r) => r.truePositive).length;
const times = byImage.map((r) => r.ms).sort((a, b) => a - b);
const summary = {
  ap50: averagePrecision(ranked, raccoons),
  recall: truePositives / raccoons,
  precision: ranked.length ? truePositives / ranked.length : 0,
  proposals: ranked.length,
  raccoons,
  msPerImageMedian: times[Math.floor(times.length / 2)],
  msPerImageMax: times[times.length - 1],
  teachMs,
};
const pct = (v: number) => (v * 100).toFixed(1);
process.stdout.write(
  [
    `learned job on raccoon: ${photos.length} photos after a model taught on ${seeds.length} (threads ${threads})`,
    '',
    '| AP50 | recall | precision | proposals | raccoons | ms/photo median (max) |',
    '|---|---|---|---|---|---|',
    `| ${pct(summary.ap50)} | ${pct(summary.recall)} | ${pct(summary.precision)} | ${summary.proposals} | ${raccoons} | ${summary.msPerImageMedian.toFixed(0)} (${summary.msPerImageMax.toFixed(0)}) |`,
    '',
  ].join('\n'),
);
await mkdir(dirname(out), { recursive: true });
await writeFile(out, `${JSON.stringify({ commit: gitCommit(), seedImages: seeds.length, images: photos.length, threads, learnedJob: summary, byImage }, null, 2)}\n`);
