/**
 * The expensive half of the learn eval, once per photo and kept on disk: segment everything's
 * proposals (the shipped rule, through its public function) and the ground truth, each with its
 * region descriptors (src/engine/learn/descriptors.ts), and every proposal's overlap with every
 * ground-truth instance. The simulated person (learn.ts) then replays from these in seconds, so a
 * change to the classifier or the descriptor choice does not run a model again.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeImage } from '../../src/engine/adapters/nodeImage';
import type { SegmentationEngine } from '../../src/engine/engine';
import { DEFAULT_EVERYTHING_RULE, segmentEverything, type EverythingRule } from '../../src/engine/everything/segmentEverything';
import { maskBox, type RegionDescriptor } from '../../src/engine/learn/descriptors';
import { describeMasks, detectorsForDescriptors, photoContext } from '../../src/engine/learn/describePhoto';
import type { ConceptDetector, CornerBox } from '../../src/engine/text/detector';
import { cornerToCenterBox } from '../../src/engine/text/pipeline';
import type { BinaryMask } from '../../src/engine/types';
import type { CocoInstancesFile } from './everything';
import { boxRegion, intersection, toRegion, type Region } from './metrics';
import { rasterizeSegmentation } from './rasterize';

/** Bump when what is cached changes: older entries are recomputed. */
export const LEARN_CACHE_VERSION = 2;

export interface CachedInstance {
  readonly categoryId: number;
  readonly crowd: boolean;
  /** Ground truth with boxes only (`segmentation: []`): matched by box IoU. */
  readonly boxOnly: boolean;
  readonly box: CornerBox;
  /** Of the mask a person would have made: the ground truth's, or SAM's answer to its box when box-only. */
  readonly descriptor: RegionDescriptor;
}

export interface CachedProposal {
  readonly box: CornerBox;
  readonly area: number;
  /** Segment everything's own confidence (predicted IoU × stability). */
  readonly confidence: number;
  readonly source: string;
  readonly label?: string;
  readonly detectorScore?: number;
  readonly descriptor: RegionDescriptor;
  /**
   * Overlap with each ground-truth instance, in order: mask IoU, box IoU for box-only ground truth,
   * and for crowd regions the share of the proposal inside them (COCOeval's rule).
   */
  readonly overlaps: readonly number[];
}

export interface CachedPhoto {
  readonly version: number;
  readonly file: string;
  readonly width: number;
  readonly height: number;
  readonly instances: readonly CachedInstance[];
  readonly proposals: readonly CachedProposal[];
  /** The segment everything rule that made the proposals (absent: entries from before the choice, the interactive rule). */
  readonly rule?: EverythingRule;
  /** Node wall time of the tool's work on this photo: the embedding, segment everything, describing. */
  readonly ms: { embed: number; everything: number; detect: number; describe: number };
}

export interface PhotoSource {
  readonly dataDir: string;
  readonly cacheDir: string;
  readonly engine: SegmentationEngine;
  readonly detectors: readonly ConceptDetector[];
  /** The segment everything rule whose proposals are cached (default: the interactive rule). */
  readonly rule?: EverythingRule;
}

/** The rule a cached photo's proposals came from. */
export function cachedRule(photo: Pick<CachedPhoto, 'rule'>): EverythingRule {
  return photo.rule ?? DEFAULT_EVERYTHING_RULE;
}

/**
 * Whether a cache entry can be replayed for `rule`: undefined when it can or must be computed (missing
 * or an older version), else why not. A folder holds one rule's proposals: an entry of another rule is
 * an error, never overwritten, since other runs may be replaying that folder.
 */
export function cacheEntryProblem(photo: Pick<CachedPhoto, 'version' | 'rule' | 'file'> | undefined, rule: EverythingRule): string | undefined {
  if (photo?.version !== LEARN_CACHE_VERSION) return undefined;
  const own = cachedRule(photo);
  return own === rule ? undefined : `${photo.file} is cached with the ${own} rule's proposals, not the ${rule} rule's: give another --cache folder`;
}

/** The cached photo, computed first when missing or stale. */
export async function cachedPhoto(source: PhotoSource, instances: CocoInstancesFile, info: CocoInstancesFile['images'][number]): Promise<CachedPhoto> {
  const file = join(source.cacheDir, `${info.file_name}.json`);
  let cached: CachedPhoto | undefined;
  try {
    cached = JSON.parse(await readFile(file, 'utf8')) as CachedPhoto;
  } catch {
    // Not cached yet.
  }
  const problem = cacheEntryProblem(cached, source.rule ?? DEFAULT_EVERYTHING_RULE);
  if (problem) throw new Error(problem);
  if (cached?.version === LEARN_CACHE_VERSION) return cached;
  const photo = await computePhoto(source, instances, info);
  await mkdir(source.cacheDir, { recursive: true });
  await writeFile(file, JSON.stringify(photo, (_key, value) => (typeof value === 'number' && !Number.isInteger(value) ? Math.round(value * 1e5) / 1e5 : value)));
  return photo;
}

/** A ground-truth instance as proposals are matched against it. */
export interface GroundTruthRegion {
  readonly region: Region;
  readonly boxOnly: boolean;
  readonly crowd: boolean;
}

/**
 * A proposal's overlap with each ground-truth instance: mask IoU, box IoU for box-only ground truth,
 * and for crowd regions the share of the proposal inside them (COCOeval's rule).
 */
export function overlapsWithGroundTruth(mask: BinaryMask, box: CornerBox, gtRegions: readonly GroundTruthRegion[]): number[] {
  const region = toRegion(mask);
  const asBox = boxRegion(box, mask.width, mask.height);
  return gtRegions.map((g) => {
    const own = g.boxOnly ? asBox : region;
    const inter = intersection(own, g.region);
    if (g.crowd) return own.area ? inter / own.area : 0;
    const union = own.area + g.region.area - inter;
    return union ? inter / union : 0;
  });
}

async function computePhoto(source: PhotoSource, instances: CocoInstancesFile, info: CocoInstancesFile['images'][number]): Promise<CachedPhoto> {
  const { engine, detectors } = source;
  const image = await decodeImage(await readFile(join(source.dataDir, 'images', info.file_name)));
  if (image.width !== info.width || image.height !== info.height) throw new Error(`${info.file_name}: size differs from instances.json`);
  const t0 = performance.now();
  const { imageKey } = await engine.embed(image, info.file_name);
  const t1 = performance.now();
  const rule = source.rule ?? DEFAULT_EVERYTHING_RULE;
  const everything = await segmentEverything(engine, imageKey, { rule, image, detectors });
  const t2 = performance.now();
  // The descriptors read the detectors' boxes at a low score: a weak "cat" is still a signature.
  const detectorRun = await detectorsForDescriptors(image, detectors);
  const t3 = performance.now();
  const photo = photoContext(engine, imageKey, image, detectorRun);

  const annotations = instances.annotations.filter((a) => a.image_id === info.id);
  const gtRegions: GroundTruthRegion[] = [];
  const cachedInstances: CachedInstance[] = [];
  for (const a of annotations) {
    const [bx, by, bw, bh] = a.bbox;
    const box = { x0: bx, y0: by, x1: bx + bw, y1: by + bh };
    const boxOnly = Array.isArray(a.segmentation) && a.segmentation.length === 0;
    let mask: BinaryMask;
    if (boxOnly) {
      // What a person labelling by box gets: SAM's answer to that box.
      const { candidates } = await engine.predict(imageKey, { box: cornerToCenterBox(box) }, { multimask: false, mirrorAverage: false });
      mask = candidates[0].mask;
      gtRegions.push({ region: boxRegion(box, info.width, info.height), boxOnly, crowd: a.iscrowd === 1 });
    } else {
      mask = rasterizeSegmentation(a.segmentation, info.width, info.height);
      gtRegions.push({ region: toRegion(mask), boxOnly, crowd: a.iscrowd === 1 });
    }
    cachedInstances.push({ categoryId: a.category_id, crowd: a.iscrowd === 1, boxOnly, box, descriptor: describeMasks(photo, [mask])[0] });
  }
  const proposals: CachedProposal[] = everything.proposals.map((p) => {
    const box = maskBox(p.mask) ?? p.box;
    const overlaps = overlapsWithGroundTruth(p.mask, box, gtRegions);
    return {
      box,
      area: p.area,
      confidence: p.confidence,
      source: p.source,
      ...(p.label === undefined ? {} : { label: p.label, detectorScore: p.detectorScore }),
      descriptor: describeMasks(photo, [p.mask])[0],
      overlaps,
    };
  });
  const t4 = performance.now();
  engine.forget();
  return {
    version: LEARN_CACHE_VERSION,
    file: info.file_name,
    width: info.width,
    height: info.height,
    instances: cachedInstances,
    proposals,
    rule,
    ms: { embed: t1 - t0, everything: t2 - t1, detect: t3 - t2, describe: t4 - t3 },
  };
}
