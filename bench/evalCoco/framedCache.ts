/**
 * `npx tsx bench/evalCoco/framedCache.ts --data DIR --cache LEARN_CACHE --detections DIR --out DIR [--threads N]`
 *
 * The whole-object candidates of src/engine/learn/framedCandidates.ts for every photo of a learn cache
 * (learnCache.ts), one JSON file per photo, described and matched like the cache's own proposals: the
 * learn eval replays them beside those (`--framed DIR`). Reads the cached SAM embeddings and the
 * cached detections (detectionsCache.ts), so it runs the decoder only. The `backbone` descriptor is
 * left empty (no detector run), so such a replay cannot read it.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { decodeImage } from '../../src/engine/adapters/nodeImage';
import { defaultModelDir, loadNodeEngine } from '../../src/engine/adapters/ortNode';
import { samFiles } from '../../src/engine/catalog';
import { DEFAULT_EVERYTHING_RULE, EVERYTHING_SETTINGS } from '../../src/engine/everything/segmentEverything';
import { describeMasks, photoContext } from '../../src/engine/learn/describePhoto';
import { insideShare } from '../../src/engine/learn/suppress';
import { maskBox } from '../../src/engine/learn/descriptors';
import { framedCandidates } from './framedCandidates';
import { diskEmbeddingStore } from '../eval/embeddingStore';
import { alreadyBuilt, detectionsFile, type CachedDetections } from './detectionsCache';
import type { CocoInstancesFile } from './everything';
import { overlapsWithGroundTruth, type CachedPhoto, type CachedProposal, type GroundTruthRegion } from './learnCache';
import { boxRegion, toRegion } from './metrics';
import { rasterizeSegmentation } from './rasterize';

/** One photo's framed candidates, as the learn eval appends them to the cached proposals. */
export interface FramedPhoto {
  readonly file: string;
  readonly proposals: readonly CachedProposal[];
}

export const FRAMED_SOURCE = 'framed';

export const framedFile = (dir: string, fileName: string) => join(dir, `${fileName}.framed.json`);

/** Which framed candidates a replay appends: the variants measured. */
export interface FramedChoice {
  /** Only those from a detector's box scored at least this. */
  readonly minScore: number;
  /** Only those whose box holds most (CONTAINED) of a candidate's box: the box frames more than SAM answered. */
  readonly containing: boolean;
}

const CONTAINED = 0.7;

/** The photos with their framed candidates appended. */
export async function withFramedFromDir(photos: readonly CachedPhoto[], dir: string, choice: FramedChoice): Promise<CachedPhoto[]> {
  return Promise.all(
    photos.map(async (p) => {
      const framed = JSON.parse(await readFile(framedFile(dir, p.file), 'utf8')) as FramedPhoto;
      const chosen = framed.proposals.filter((q) => (q.detectorScore ?? 0) >= choice.minScore && (!choice.containing || p.proposals.some((o) => insideShare(o.box, q.box) >= CONTAINED)));
      return { ...p, proposals: [...p.proposals, ...chosen] };
    }),
  );
}

function groundTruthRegions(instances: CocoInstancesFile, info: CocoInstancesFile['images'][number]): GroundTruthRegion[] {
  return instances.annotations
    .filter((a) => a.image_id === info.id)
    .map((a) => {
      const [bx, by, bw, bh] = a.bbox;
      const boxOnly = Array.isArray(a.segmentation) && a.segmentation.length === 0;
      const region = boxOnly ? boxRegion({ x0: bx, y0: by, x1: bx + bw, y1: by + bh }, info.width, info.height) : toRegion(rasterizeSegmentation(a.segmentation, info.width, info.height));
      return { region, boxOnly, crowd: a.iscrowd === 1 };
    });
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { data: { type: 'string' }, cache: { type: 'string' }, detections: { type: 'string' }, out: { type: 'string' }, threads: { type: 'string' } } });
  if (!values.data || !values.cache || !values.detections || !values.out) throw new Error('usage: --data DIR --cache LEARN_CACHE --detections DIR --out DIR [--threads N]');
  const dataDir = resolve(values.data);
  const outDir = resolve(values.out);
  await mkdir(outDir, { recursive: true });
  const instances = JSON.parse(await readFile(join(dataDir, 'instances.json'), 'utf8')) as CocoInstancesFile;
  const engine = await loadNodeEngine({
    threads: values.threads ? Number(values.threads) : undefined,
    embeddingCacheSize: 2,
    embeddingStore: diskEmbeddingStore(join(defaultModelDir(), samFiles().encoder)),
  });
  const minScore = EVERYTHING_SETTINGS[DEFAULT_EVERYTHING_RULE].minDetectorScore;
  for (const [i, info] of instances.images.entries()) {
    const file = framedFile(outDir, info.file_name);
    if (await alreadyBuilt(file)) continue;
    const cached = JSON.parse(await readFile(join(resolve(values.cache), `${info.file_name}.json`), 'utf8')) as CachedPhoto;
    const detections = (JSON.parse(await readFile(detectionsFile(resolve(values.detections), info.file_name), 'utf8')) as CachedDetections).map((d) => ({ ...d, classIndex: -1 }));
    const image = await decodeImage(await readFile(join(dataDir, 'images', info.file_name)));
    const { imageKey } = await engine.embed(image, info.file_name);
    const found = await framedCandidates(engine, imageKey, detections, cached.proposals.map((p) => p.box), { minScore });
    const photo = photoContext(engine, imageKey, image, { detections });
    const descriptors = describeMasks(photo, found.map((c) => c.mask));
    const gtRegions = groundTruthRegions(instances, info);
    const proposals: CachedProposal[] = found.map((c, k) => {
      const box = maskBox(c.mask)!;
      return { box, area: c.mask.data.reduce((s, v) => s + v, 0), confidence: 0, source: FRAMED_SOURCE, label: c.label!, detectorScore: c.detectorScore!, descriptor: descriptors[k], overlaps: overlapsWithGroundTruth(c.mask, box, gtRegions) };
    });
    engine.forget();
    const framed: FramedPhoto = { file: info.file_name, proposals };
    await writeFile(file, JSON.stringify(framed, (_key, value) => (typeof value === 'number' && !Number.isInteger(value) ? Math.round(value * 1e5) / 1e5 : value)));
    process.stderr.write(`[${i + 1}/${instances.images.length}] ${info.file_name}: ${proposals.length} framed\n`);
  }
  await engine.release();
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
