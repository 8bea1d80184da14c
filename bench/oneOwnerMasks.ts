/**
 * What one-owner mask formats (PNG masks, Pascal VOC) cost on real annotations: the COCO val2017
 * images of ../shared/eval/coco-tiny (polygon annotations; crowd RLE left out), each image's
 * objects painted in the file's order (the later owns the pixel: the rule before issue 39) and
 * largest first (the rule now). Counts the objects left with no pixel, those that lose any, and the
 * largest share of an object's area lost. Run: `npx tsx bench/oneOwnerMasks.ts [instances.json]`;
 * prints a table and writes bench/results/one-owner-masks.json. Figures go to docs/RESULTS.md.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Annotation } from '../src/annotations/annotation';
import { sessionDataset, type DatasetImage } from '../src/annotations/formats/dataset';
import { pairsToRing } from '../src/annotations/formats/imported';
import { instanceIndexMask } from '../src/annotations/formats/pngMasks';
import { readDatasetFiles } from '../src/annotations/formats/readFiles';
import { formatById } from '../src/annotations/formats/registry';

const EVAL = process.env.EVAL_DIR ?? join(import.meta.dirname, '../../shared/eval');
const file = process.argv[2] ?? join(EVAL, 'coco-tiny/instances.json');

interface Coco {
  images: Array<{ id: number; file_name: string; width: number; height: number }>;
  annotations: Array<{ id: number; image_id: number; category_id: number; segmentation: unknown; iscrowd: number }>;
  categories: Array<{ id: number; name: string }>;
}

const coco = JSON.parse(readFileSync(file, 'utf8')) as Coco;
const objects: Record<string, Annotation[]> = {};
for (const a of coco.annotations) {
  if (a.iscrowd || !Array.isArray(a.segmentation)) continue;
  (objects[String(a.image_id)] ??= []).push({
    id: String(a.id),
    label: String(a.id),
    classId: a.category_id,
    confidence: 1,
    color: '#888888',
    visible: true,
    source: 'local',
    polygons: (a.segmentation as number[][]).map((flat) => ({ outer: pairsToRing(flat), holes: [] })),
  });
}
const dataset = sessionDataset(
  { images: coco.images.map((i) => ({ id: String(i.id), name: i.file_name, width: i.width, height: i.height })), objects, classes: coco.categories.map((c) => ({ id: c.id, name: c.name, color: '#888888' })) },
  { includeHidden: true },
);

/** The rule before: every object painted in list order, the later owning the pixel. */
function listOrderMask(entry: DatasetImage): Uint16Array {
  const pixels = new Uint16Array(entry.image.width * entry.image.height);
  entry.objects.forEach(({ geometry }, index) => {
    for (let i = 0; i < pixels.length; i++) if (geometry.mask.data[i]) pixels[i] = index + 1;
  });
  return pixels;
}

function losses(paint: (entry: DatasetImage) => Uint16Array) {
  let objectsTotal = 0;
  let vanished = 0;
  let losing = 0;
  let worstLoss = 0;
  let losingOver10Percent = 0;
  for (const entry of dataset.images) {
    const owned = new Array<number>(entry.objects.length + 1).fill(0);
    for (const v of paint(entry)) owned[v]++;
    entry.objects.forEach(({ geometry }, i) => {
      objectsTotal++;
      const lost = 1 - owned[i + 1] / geometry.area;
      if (owned[i + 1] === 0) vanished++;
      if (lost > 0) losing++;
      if (lost > 0.1) losingOver10Percent++;
      worstLoss = Math.max(worstLoss, lost);
    });
  }
  return { objects: objectsTotal, vanished, losing, losingOver10Percent, worstLossPercent: Math.round(worstLoss * 1000) / 10 };
}

const rows = [
  { rule: 'list order, later owns (before)', ...losses(listOrderMask) },
  { rule: 'largest first (now)', ...losses(instanceIndexMask) },
];
console.log(`one-owner masks on ${file} (${dataset.images.length} images)`);
console.log('| rule | objects | no pixel left | lose some pixels | lose > 10 % | worst loss |');
console.log('|---|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.rule} | ${r.objects} | ${r.vanished} | ${r.losing} | ${r.losingOver10Percent} | ${r.worstLossPercent} % |`);
// The real writers and readers, end to end: what comes back, what the reader and the notes say.
const throughFiles = [];
for (const id of ['voc', 'png-masks']) {
  const written = await formatById(id)!.write(dataset, {});
  const read = await readDatasetFiles([{ name: written.name, bytes: written.bytes }]);
  throughFiles.push({ format: id, objectsBack: read.dataset.annotations.length, readerProblems: read.dataset.problems.length, notes: written.notes?.length ?? 0 });
}
console.log('| format (largest first) | objects written | objects read back | reader problems | notes naming losers |');
console.log('|---|---|---|---|---|');
for (const r of throughFiles) console.log(`| ${r.format} | ${rows[1].objects} | ${r.objectsBack} | ${r.readerProblems} | ${r.notes} |`);
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/one-owner-masks.json', JSON.stringify({ file, images: dataset.images.length, rows, throughFiles }, null, 2));
