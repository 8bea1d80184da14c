/**
 * `npx tsx bench/evalCoco/detectionsCache.ts --data DIR --cache DIR [--threads N]`
 *
 * The detectors' boxes on every photo of a COCO-style folder (the run the region descriptors read,
 * describePhoto.ts detectorsForDescriptors), one JSON file per photo. A learn cache made before a
 * descriptor read the boxes in a new way is replayed with these beside it (learnReplay.ts
 * withFitDescriptors), so such a change needs the detectors again but not SAM.
 */
import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { decodeImage } from '../../src/engine/adapters/nodeImage';
import { loadNodeDetectors } from '../../src/engine/adapters/textNode';
import { detectorsForDescriptors } from '../../src/engine/learn/describePhoto';
import { fitDescriptor, type RegionDescriptor } from '../../src/engine/learn/descriptors';
import type { CornerBox, Detection } from '../../src/engine/text/detector';
import type { CachedPhoto } from './learnCache';
import type { CocoInstancesFile } from './everything';

export type CachedDetections = readonly Pick<Detection, 'label' | 'score' | 'box' | 'detector'>[];

export const detectionsFile = (cacheDir: string, fileName: string) => join(cacheDir, `${fileName}.detections.json`);

/** Whether a per-photo cache file is there already: the builders resume where they stopped. */
export async function alreadyBuilt(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { data: { type: 'string' }, cache: { type: 'string' }, threads: { type: 'string' } } });
  if (!values.data || !values.cache) throw new Error('usage: --data DIR --cache DIR [--threads N]');
  const dataDir = resolve(values.data);
  const cacheDir = resolve(values.cache);
  await mkdir(cacheDir, { recursive: true });
  const instances = JSON.parse(await readFile(join(dataDir, 'instances.json'), 'utf8')) as CocoInstancesFile;
  const detectors = await loadNodeDetectors({ threads: values.threads ? Number(values.threads) : undefined });
  for (const [i, info] of instances.images.entries()) {
    const file = detectionsFile(cacheDir, info.file_name);
    if (await alreadyBuilt(file)) continue;
    const image = await decodeImage(await readFile(join(dataDir, 'images', info.file_name)));
    const run = await detectorsForDescriptors(image, detectors);
    const detections: CachedDetections = run.detections.map((d) => ({ label: d.label, score: d.score, box: d.box, detector: d.detector }));
    await writeFile(file, JSON.stringify(detections));
    process.stderr.write(`[${i + 1}/${instances.images.length}] ${info.file_name}: ${detections.length} detections\n`);
  }
  for (const d of detectors) await d.release();
}

if (import.meta.url === `file://${process.argv[1]}`) await main();

/**
 * A cached photo with the `fit` descriptor added from its detections: a proposal's from its mask's box
 * (as the product reads it), a ground-truth instance's from its box (the product reads the box of the
 * mask the person made, which the cache does not keep).
 */
export function withFitDescriptors(photo: CachedPhoto, detections: CachedDetections): CachedPhoto {
  const dets = detections.map((d) => ({ ...d, classIndex: -1 }));
  const fit = <T extends { box: CornerBox; descriptor: RegionDescriptor }>(r: T): T => ({ ...r, descriptor: { ...r.descriptor, fit: fitDescriptor(dets, r.box) } });
  return { ...photo, instances: photo.instances.map(fit), proposals: photo.proposals.map(fit) };
}

/** Every photo with the `fit` descriptor, from the detections cached in `dir` but those of `hidden` classes (unknownClasses.ts). */
export async function withFitFromDir(photos: readonly CachedPhoto[], dir: string, hidden: ReadonlySet<string> = new Set()): Promise<CachedPhoto[]> {
  return Promise.all(
    photos.map(async (p) => withFitDescriptors(p, (JSON.parse(await readFile(detectionsFile(dir, p.file), 'utf8')) as CachedDetections).filter((d) => !hidden.has(d.label)))),
  );
}
