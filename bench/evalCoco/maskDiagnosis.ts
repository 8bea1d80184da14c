/**
 * `npx tsx bench/evalCoco/maskDiagnosis.ts [--data DIR] [--split fit|held-out] [--limit N] [--out FILE]`
 *
 * Why do the pooled detections lose AP50 as SAM masks against the same detections as boxes? Every
 * pooled detection (calibrated score ≥ 0.05, all 80 classes) is decoded ONCE with SAM's four mask
 * tokens (box prompt) and once more as box + the box's centre point; then several ways of choosing
 * the mask, ranking the answers and removing duplicates are scored side by side on the same
 * detections: box AP50 (box IoU against COCO's boxes) is the ceiling the masks are compared with,
 * and "oracle" (the candidate that best matches the ground truth) bounds what any choice of SAM's
 * candidates could give. Meant for the FIT half: what it finds is then fixed by principle and
 * measured once on the held-out half with `npm run eval -- --dataset coco --split held-out`.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { decodeImage } from '../../src/engine/adapters/nodeImage';
import { loadNodeEngine } from '../../src/engine/adapters/ortNode';
import { loadNodeDetectors } from '../../src/engine/adapters/textNode';
import { maskIoU } from '../../src/engine/polygons';
import type { BinaryMask } from '../../src/engine/types';
import { COCO_CLASSES, type CocoClass } from '../../src/engine/text/cocoClasses';
import { boxIoU, suppressOverlaps, type CornerBox, type Detection } from '../../src/engine/text/detector';
import { cornerToCenterBox, TextPipeline } from '../../src/engine/text/pipeline';
import { averagePrecision, boxRegion, cocoIoU, countAt, matchImage, mean, reliability, toRegion, type GroundTruthInstance, type ImageMatch, type Region } from './metrics';
import { rasterizeSegmentation, type CocoSegmentation } from './rasterize';

interface CocoInstances {
  images: { id: number; file_name: string; width: number; height: number }[];
  annotations: { image_id: number; category_id: number; iscrowd: number; segmentation: CocoSegmentation; bbox: number[] }[];
  categories: { id: number; name: string }[];
}

/** One SAM candidate of one detection, with what can be known without the ground truth. */
interface Candidate {
  readonly region: Region;
  readonly predictedIoU: number;
  /** IoU of the mask's bounding box with the detection's box. */
  readonly boxAgreement: number;
  /** Mask pixels / box pixels. */
  readonly fill: number;
  /** Best mask IoU with a ground truth of the detection's class (for the oracle and the diagnosis only). */
  readonly gtIoU: number;
}

interface Decoded {
  readonly detection: Detection;
  readonly boxRegion: Region;
  readonly boxGtIoU: number;
  /** candidates[0] is the product's current answer (token 0 unless unstable). */
  readonly candidates: readonly Candidate[];
  /** Box + centre point, when the centre lies in candidates[0]'s mask. */
  readonly withCentre?: Candidate;
}

type Chooser = (d: Decoded) => { candidate: Candidate; score: number } | undefined;

const OPERATING = 0.3;

function maskBounds(r: Region): CornerBox {
  return { x0: r.x0, y0: r.y0, x1: r.x1 + 1, y1: r.y1 + 1 };
}

function describe(region: Region, predictedIoU: number, box: CornerBox, gts: readonly GroundTruthInstance[]): Candidate {
  const boxArea = Math.max(1, (box.x1 - box.x0) * (box.y1 - box.y0));
  return {
    region,
    predictedIoU,
    boxAgreement: region.area > 0 ? boxIoU(maskBounds(region), box) : 0,
    fill: region.area / boxArea,
    gtIoU: Math.max(0, ...gts.filter((g) => !g.crowd).map((g) => cocoIoU(region, g))),
  };
}

const choosers: Record<string, Chooser> = {
  'current (token 0 unless unstable), calibrated score': (d) => ({ candidate: d.candidates[0], score: d.detection.score }),
  'max predicted IoU among tokens': (d) => {
    const c = [...d.candidates].sort((a, b) => b.predictedIoU - a.predictedIoU)[0];
    return { candidate: c, score: d.detection.score };
  },
  'max agreement with the box among tokens': (d) => {
    const c = [...d.candidates].sort((a, b) => b.boxAgreement - a.boxAgreement)[0];
    return { candidate: c, score: d.detection.score };
  },
  'box + centre point when inside': (d) => ({ candidate: d.withCentre ?? d.candidates[0], score: d.detection.score }),
  'current, score × predicted IoU': (d) => ({ candidate: d.candidates[0], score: d.detection.score * d.candidates[0].predictedIoU }),
  'current, score × box agreement': (d) => ({ candidate: d.candidates[0], score: d.detection.score * d.candidates[0].boxAgreement }),
  'agreement choice, score × its agreement': (d) => {
    const c = [...d.candidates].sort((a, b) => b.boxAgreement - a.boxAgreement)[0];
    return { candidate: c, score: d.detection.score * c.boxAgreement };
  },
  'current, dropped when it fills < 20 % of its box': (d) => (d.candidates[0].fill < 0.2 ? undefined : { candidate: d.candidates[0], score: d.detection.score }),
  'oracle token (best ground-truth IoU; upper bound)': (d) => {
    const c = [...d.candidates, ...(d.withCentre ? [d.withCentre] : [])].sort((a, b) => b.gtIoU - a.gtIoU)[0];
    return { candidate: c, score: d.detection.score };
  },
};

const dedupes: Record<string, (a: Region, b: Region) => number> = {
  'mask IoU 0.8 (current)': (a, b) => (maskIoU(a.mask, b.mask) > 0.8 ? 1 : 0),
  'mask IoU 0.5': (a, b) => (maskIoU(a.mask, b.mask) > 0.5 ? 1 : 0),
  'mask IoU 0.5 or one inside the other (≥ 0.8 of the smaller)': (a, b) => {
    const inter = maskIoU(a.mask, b.mask) > 0.5 ? 1 : containment(a, b) >= 0.8 ? 1 : 0;
    return inter;
  },
};

function containment(a: Region, b: Region): number {
  let inter = 0;
  for (let i = 0; i < a.mask.data.length; i++) inter += a.mask.data[i] & b.mask.data[i];
  return inter / Math.max(1, Math.min(a.area, b.area));
}

interface Tally {
  pool: Map<CocoClass, ImageMatch[]>;
  operating: Map<CocoClass, ImageMatch[]>;
}
const newTally = (): Tally => ({ pool: new Map(COCO_CLASSES.map((c) => [c, []])), operating: new Map(COCO_CLASSES.map((c) => [c, []])) });

function summarize(t: Tally) {
  const { tp, fp, positives } = countAt([...t.operating.values()].flat());
  return {
    recall: positives ? tp / positives : NaN,
    precision: tp + fp ? tp / (tp + fp) : NaN,
    ap50: mean(COCO_CLASSES.map((c) => averagePrecision(t.pool.get(c)!)[0])) ?? NaN,
    ece: reliability([...t.pool.values()].flat()).ece ?? NaN,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { data: { type: 'string' }, split: { type: 'string' }, limit: { type: 'string' }, out: { type: 'string' } } });
  const dataDir = resolve(values.data ?? '../shared/eval/coco-tiny');
  const split = values.split ?? 'fit';
  const instances = JSON.parse(await readFile(join(dataDir, 'instances.json'), 'utf8')) as CocoInstances;
  const classOf = new Map(instances.categories.map((c) => [c.id, c.name as CocoClass]));
  let images = [...instances.images].sort((a, b) => a.file_name.localeCompare(b.file_name)).filter((_, k) => (k % 2 === 0) === (split === 'fit'));
  if (values.limit) images = images.slice(0, Number(values.limit));

  const engine = await loadNodeEngine({});
  const detectors = await loadNodeDetectors({});
  const pipeline = new TextPipeline(engine, detectors);
  const tallies = new Map<string, Tally>();
  const tally = (name: string): Tally => tallies.get(name) ?? (tallies.set(name, newTally()), tallies.get(name)!);
  // Detections whose box matches (box IoU ≥ 0.5) but whose current mask does not (mask IoU < 0.5).
  const lost = { boxRight: 0, maskAlsoRight: 0, anyTokenRight: 0, fills: [] as number[], gtIoUs: [] as number[] };
  const started = Date.now();

  for (const [i, info] of images.entries()) {
    const image = await decodeImage(await readFile(join(dataDir, 'images', info.file_name)));
    const gtMasks = new Map<string, GroundTruthInstance[]>();
    const gtBoxes = new Map<string, GroundTruthInstance[]>();
    for (const a of instances.annotations.filter((x) => x.image_id === info.id)) {
      const name = classOf.get(a.category_id)!;
      const crowd = a.iscrowd === 1;
      gtMasks.set(name, [...(gtMasks.get(name) ?? []), { region: toRegion(rasterizeSegmentation(a.segmentation, info.width, info.height)), crowd }]);
      const [x, y, w, h] = a.bbox;
      gtBoxes.set(name, [...(gtBoxes.get(name) ?? []), { region: boxRegion({ x0: x, y0: y, x1: x + w, y1: y + h }, info.width, info.height), crowd }]);
    }
    const detections = await pipeline.detect(image, 0.05);
    const { imageKey } = await engine.embed(image, info.file_name);
    const decoded: Decoded[] = [];
    for (const detection of detections) {
      const gts = gtMasks.get(detection.label) ?? [];
      const prompt = { box: cornerToCenterBox(detection.box) };
      const { candidates } = await engine.predict(imageKey, prompt, { multimask: true, mirrorAverage: false });
      if (candidates.length === 0) continue;
      const described = candidates.map((c) => describe(toRegion(c.mask), c.score, detection.box, gts));
      const cx = (detection.box.x0 + detection.box.x1) / 2;
      const cy = (detection.box.y0 + detection.box.y1) / 2;
      let withCentre: Candidate | undefined;
      const first = candidates[0].mask as BinaryMask;
      if (first.data[Math.min(first.height - 1, Math.floor(cy)) * first.width + Math.min(first.width - 1, Math.floor(cx))]) {
        const answer = await engine.predict(imageKey, { ...prompt, points: [{ x: cx, y: cy }] }, { multimask: false, mirrorAverage: false });
        if (answer.candidates[0]) withCentre = describe(toRegion(answer.candidates[0].mask), answer.candidates[0].score, detection.box, gts);
      }
      const box = boxRegion(detection.box, info.width, info.height);
      const boxGtIoU = Math.max(0, ...(gtBoxes.get(detection.label) ?? []).filter((g) => !g.crowd).map((g) => cocoIoU(box, g)));
      decoded.push({ detection, boxRegion: box, boxGtIoU, candidates: described, withCentre });
      if (boxGtIoU >= 0.5 && detection.score >= OPERATING) {
        lost.boxRight++;
        if (described[0].gtIoU >= 0.5) lost.maskAlsoRight++;
        else {
          lost.fills.push(described[0].fill);
          lost.gtIoUs.push(described[0].gtIoU);
          if (described.some((c) => c.gtIoU >= 0.5) || (withCentre && withCentre.gtIoU >= 0.5)) lost.anyTokenRight++;
        }
      }
    }
    engine.forget();

    for (const name of COCO_CLASSES) {
      const mine = decoded.filter((d) => d.detection.label === name);
      const gts = gtMasks.get(name) ?? [];
      const boxes = mine.map((d) => ({ region: d.boxRegion, score: d.detection.score }));
      const bt = tally('boxes, box IoU against COCO boxes (ceiling)');
      bt.pool.get(name)!.push(matchImage(gtBoxes.get(name) ?? [], boxes));
      bt.operating.get(name)!.push(matchImage(gtBoxes.get(name) ?? [], boxes.filter((b) => b.score >= OPERATING)));
      for (const [chooserName, chooser] of Object.entries(choosers)) {
        const chosen = mine
          .map((d) => ({ d, c: chooser(d) }))
          .filter((x): x is { d: Decoded; c: NonNullable<ReturnType<Chooser>> } => !!x.c)
          .sort((a, b) => b.c.score - a.c.score);
        for (const [dedupeName, overlap] of Object.entries(dedupes)) {
          if (dedupeName !== 'mask IoU 0.8 (current)' && !chooserName.startsWith('current')) continue;
          const kept = suppressOverlaps(chosen, (a, b) => overlap(a.c.candidate.region, b.c.candidate.region), 0.5);
          const scored = kept.map((x) => ({ region: x.c.candidate.region, score: x.c.score, operating: x.d.detection.score >= OPERATING }));
          const t = tally(`${chooserName} | dedupe ${dedupeName}`);
          t.pool.get(name)!.push(matchImage(gts, scored));
          t.operating.get(name)!.push(matchImage(gts, scored.filter((s) => s.operating)));
        }
      }
    }
    process.stderr.write(`[${i + 1}/${images.length}] ${info.file_name}: ${decoded.length} detections (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  }
  await engine.release();
  for (const d of detectors) await d.release();

  const pct = (v: number): string => (Number.isFinite(v) ? (v * 100).toFixed(1) : '–');
  const lines = [
    `mask diagnosis, ${split} half, ${images.length} images; operating point calibrated score ≥ ${OPERATING}`,
    '',
    '| mask choice, ranking | dedupe | recall@0.5 | precision@0.5 | AP50 | ECE |',
    '|---|---|---|---|---|---|',
    ...[...tallies.entries()].map(([name, t]) => {
      const s = summarize(t);
      const [chooser, dedupe] = name.split(' | ');
      return `| ${chooser} | ${dedupe ?? '–'} | ${pct(s.recall)} | ${pct(s.precision)} | ${pct(s.ap50)} | ${pct(s.ece)} |`;
    }),
    '',
    `at the operating point, ${lost.boxRight} detections match as boxes; ${lost.maskAlsoRight} of them also as the current mask; ` +
      `of the ${lost.boxRight - lost.maskAlsoRight} that do not, ${lost.anyTokenRight} have a right mask among the other tokens or box + centre`,
    `their masks: median fill of the box ${median(lost.fills).toFixed(2)}, median ground-truth IoU ${median(lost.gtIoUs).toFixed(2)}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  const out = resolve(values.out ?? `bench/results/mask-diagnosis-${split}.json`);
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, JSON.stringify({ split, images: images.length, summary: Object.fromEntries([...tallies].map(([k, t]) => [k, summarize(t)])), lost }, null, 2));
}

function median(values: readonly number[]): number {
  if (!values.length) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
