/**
 * The example path in the learn eval (`--example-seeds`): on each photo the tool proposes on, the
 * looks of the person's classes no detector names (exampleCandidates.ts classLooks, as learned so
 * far in the session) prompt SAM (exampleCandidates.ts),
 * and what SAM answers is described and matched against the ground truth like a cached proposal.
 *
 * The seeds depend on what the session has learned, so they cannot be cached ahead; SAM's answer to
 * one seed on one photo can, and is kept on disk by photo and seed point (the photo's embedding comes
 * from the disk embedding store, the detectors' boxes from the detections cache minus the hidden
 * classes'), so a second replay of the same session runs no model.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeImage } from '../../src/engine/adapters/nodeImage';
import { defaultModelDir, loadNodeEngine } from '../../src/engine/adapters/ortNode';
import { samFiles } from '../../src/engine/catalog';
import type { SegmentationEngine } from '../../src/engine/engine';
import { describeMasks, photoContext } from '../../src/engine/learn/describePhoto';
import { maskBox } from '../../src/engine/learn/descriptors';
import type { LearnedClasses } from '../../src/engine/learn/learnedClasses';
import { diskEmbeddingStore } from '../eval/embeddingStore';
import { detectionsFile, type CachedDetections } from './detectionsCache';
import { classLooks, exampleSeeds, seedCandidates, type ExampleSeed } from './exampleCandidates';
import type { CocoInstancesFile } from './everything';
import { overlapsWithGroundTruth, type CachedPhoto, type CachedProposal, type GroundTruthRegion } from './learnCache';
import { toRegion } from './metrics';
import { rasterizeSegmentation } from './rasterize';


export interface ExampleProposalsSource {
  readonly dataDir: string;
  readonly instances: CocoInstancesFile;
  /** The detectors' boxes per photo (detectionsCache.ts). */
  readonly detectionsDir: string;
  /** SAM's answers per photo and seed. */
  readonly cacheDir: string;
  /** The classes no detector names (in the eval: the hidden ones). */
  readonly unnamed: ReadonlySet<string>;
  readonly threads?: number;
}

// SAM's answer depends on the point alone: the class and similarity are attached at each replay.
const seedKey = (seed: ExampleSeed) => `${seed.point.x.toFixed(1)},${seed.point.y.toFixed(1)}`;

/** The proposals the session's looks prompt on a photo, for the replay's `exampleProposals`. */
export function exampleProposals(source: ExampleProposalsSource): { proposalsOn(photo: CachedPhoto, model: LearnedClasses): Promise<CachedProposal[]>; release(): Promise<void> } {
  let engine: Promise<SegmentationEngine> | undefined;
  const loadEngine = () => (engine ??= loadNodeEngine({ threads: source.threads, embeddingCacheSize: 1, embeddingStore: diskEmbeddingStore(join(defaultModelDir(), samFiles().encoder)) }));
  return {
    async proposalsOn(photo, model) {
      if (photo.proposals.length === 0) return [];
      const looks = classLooks(model, (name) => !source.unnamed.has(name), photo.proposals[0].descriptor);
      if (looks.length === 0) return [];
      const file = join(source.cacheDir, `${photo.file}.seeds.json`);
      const answered = JSON.parse(await readFile(file, 'utf8').catch(() => '{}')) as Record<string, CachedProposal[]>;
      const sam = await loadEngine();
      const info = source.instances.images.find((i) => i.file_name === photo.file)!;
      const image = await decodeImage(await readFile(join(source.dataDir, 'images', photo.file)));
      const { imageKey } = await sam.embed(image, photo.file);
      const entry = sam.getEmbedding(imageKey)!;
      const seeds = exampleSeeds(entry.embedding, entry.width, entry.height, looks);
      const missing = seeds.filter((s) => !(seedKey(s) in answered));
      if (missing.length > 0) {
        const detections = (JSON.parse(await readFile(detectionsFile(source.detectionsDir, photo.file), 'utf8')) as CachedDetections).filter((d) => !source.unnamed.has(d.label));
        const context = photoContext(sam, imageKey, image, { detections: detections.map((d) => ({ ...d, classIndex: -1 })) });
        const truth = groundTruthRegions(source.instances, info);
        for (const seed of missing) {
          const masks = (await seedCandidates(sam, imageKey, [seed])).map((c) => c.mask);
          const descriptors = describeMasks(context, masks);
          answered[seedKey(seed)] = masks.map((mask, i) => {
            const box = maskBox(mask)!;
            return { box, area: mask.data.reduce((n, v) => n + v, 0), confidence: 0, source: 'example', descriptor: descriptors[i], overlaps: overlapsWithGroundTruth(mask, box, truth) };
          });
        }
        await mkdir(source.cacheDir, { recursive: true });
        await writeFile(file, JSON.stringify(answered, (_key, value) => (typeof value === 'number' && !Number.isInteger(value) ? Math.round(value * 1e5) / 1e5 : value)));
      }
      sam.forget();
      return seeds.flatMap((s) => answered[seedKey(s)]);
    },
    async release() {
      if (engine) await (await engine).release();
    },
  };
}

/** A photo's ground truth as learnCache.ts matches proposals against it (masks: coco-tiny has them all). */
function groundTruthRegions(instances: CocoInstancesFile, info: CocoInstancesFile['images'][number]): GroundTruthRegion[] {
  return instances.annotations
    .filter((a) => a.image_id === info.id)
    .map((a) => {
      if (Array.isArray(a.segmentation) && a.segmentation.length === 0) throw new Error(`${info.file_name}: the example path needs mask ground truth`);
      return { region: toRegion(rasterizeSegmentation(a.segmentation, info.width, info.height)), boxOnly: false, crowd: a.iscrowd === 1 };
    });
}
