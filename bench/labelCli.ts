/**
 * `npx tsx bench/labelCli.ts [--data DIR] [--seed-images 10] [--limit 30] [--threads N] [--out FILE]`
 *
 * `cli label` as a user runs it, judged: the first `--seed-images` photos of a COCO folder (file-name
 * order) are the labelled examples (their ground truth), the rest of the first `--limit` photos are
 * left to the tool; the proposals it writes are scored against the ground truth by box IoU ≥ 0.5
 * (COCOeval's matching, 101-point AP50 per class, then the mean), with precision and recall of all
 * it proposed and the wall time. Unlike the learn eval, nobody reviews: the tool learns only from the
 * examples, as the CLI does. The photos are linked, never copied.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { selectImages, type CocoInstancesFile } from './evalCoco/everything';
import { averagePrecision, boxRegion, countAt, matchImage, mean, type ImageMatch } from './evalCoco/metrics';

interface ProposalsFile {
  images: { id: number; file_name: string; width: number; height: number }[];
  annotations: { image_id: number; category_id: number; bbox: number[]; score: number }[];
  categories: { id: number; name: string }[];
}

const { values } = parseArgs({ options: { data: { type: 'string' }, 'seed-images': { type: 'string' }, limit: { type: 'string' }, threads: { type: 'string' }, out: { type: 'string' } } });
const dataDir = resolve(values.data ?? '../shared/eval/raccoon');
const seeds = Number(values['seed-images'] ?? 10);
const limit = Number(values.limit ?? 30);
const out = resolve(values.out ?? `bench/results/labelCli-${basename(dataDir)}.json`);
const truth = JSON.parse(await readFile(join(dataDir, 'instances.json'), 'utf8')) as CocoInstancesFile;
const photos = selectImages(truth.images, undefined, limit);
const examples = new Set(photos.slice(0, seeds).map((p) => p.id));

const work = await mkdtemp(join(tmpdir(), 'maskwright-label-bench-'));
await mkdir(join(work, 'images'));
for (const p of photos) await symlink(join(dataDir, 'images', p.file_name), join(work, 'images', p.file_name));
await writeFile(join(work, 'examples.json'), JSON.stringify({ ...truth, images: photos.filter((p) => examples.has(p.id)), annotations: truth.annotations.filter((a) => examples.has(a.image_id)) }));
const proposalsPath = join(work, 'proposals.json');
const args = ['src/cli/main.ts', 'label', '--images', join(work, 'images'), '--examples', join(work, 'examples.json'), '--out', proposalsPath, ...(values.threads ? ['--threads', values.threads] : [])];
const started = performance.now();
await new Promise<void>((done, fail) => {
  const child = execFile('node_modules/.bin/tsx', args, { maxBuffer: 1 << 26 }, (error) => (error ? fail(error) : done()));
  child.stderr?.pipe(process.stderr);
});
const wallMs = performance.now() - started;

const proposals = JSON.parse(await readFile(proposalsPath, 'utf8')) as ProposalsFile;
const box = ([x, y, w, h]: readonly number[], width: number, height: number) => boxRegion({ x0: x, y0: y, x1: x + w, y1: y + h }, width, height);
const byClass = new Map<string, ImageMatch[]>();
for (const info of photos.filter((p) => !examples.has(p.id))) {
  const written = proposals.images.find((i) => i.file_name === info.file_name);
  for (const category of truth.categories) {
    const gts = truth.annotations.filter((a) => a.image_id === info.id && a.category_id === category.id).map((a) => ({ region: box(a.bbox, info.width, info.height), crowd: a.iscrowd === 1 }));
    const learnedId = proposals.categories.find((c) => c.name === category.name)?.id;
    const dets = proposals.annotations
      .filter((a) => written && a.image_id === written.id && a.category_id === learnedId)
      .map((a) => ({ region: box(a.bbox, info.width, info.height), score: a.score }));
    byClass.set(category.name, [...(byClass.get(category.name) ?? []), matchImage(gts, dets, [0.5])]);
  }
}
const all = [...byClass.values()].flat();
const { tp, fp, positives } = countAt(all);
const result = {
  dataset: dataDir,
  examples: seeds,
  photosProposedOn: photos.length - seeds,
  ap50: mean([...byClass.values()].map((images) => averagePrecision(images, [0.5])[0])),
  precision: tp + fp ? tp / (tp + fp) : undefined,
  recall: positives ? tp / positives : undefined,
  proposals: tp + fp,
  instances: positives,
  msPerPhoto: wallMs / photos.length,
};
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
await mkdir(dirname(out), { recursive: true });
await writeFile(out, `${JSON.stringify(result, null, 2)}\n`);
