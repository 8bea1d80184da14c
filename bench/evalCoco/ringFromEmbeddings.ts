/**
 * The `ring` descriptor added to a learn cache made before it (the learn eval does unless `--no-ring`): read from each
 * photo's SAM embedding in the embedding store (the one the cache was made with, so no model runs)
 * and each region's box, as describeRegion reads it from the mask's box in the product. The photo is
 * decoded only to find its embedding (the store is keyed by pixel content).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeImage } from '../../src/engine/adapters/nodeImage';
import type { EmbeddingStore } from '../../src/engine/engine';
import { imageContentKey } from '../../src/engine/hash';
import { samCells, type RegionDescriptor } from '../../src/engine/learn/descriptors';
import { ringDescriptor } from '../../src/engine/learn/ringDescriptor';
import type { CornerBox } from '../../src/engine/text/detector';
import type { CachedPhoto } from './learnCache';

export async function withRingFromEmbeddings(photos: readonly CachedPhoto[], imagesDir: string, store: EmbeddingStore): Promise<CachedPhoto[]> {
  const out: CachedPhoto[] = [];
  // One photo at a time: an embedding is 4 MB and the set has hundreds.
  for (const photo of photos) {
    const image = await decodeImage(await readFile(join(imagesDir, photo.file)));
    const key = imageContentKey(image);
    const embedding = await store.load(key);
    if (!embedding) throw new Error(`${photo.file}: no embedding ${key} in the store; run the eval once without --ring on a fresh cache to make it`);
    const cells = samCells(embedding, photo.width, photo.height);
    const ring = <T extends { box: CornerBox; descriptor: RegionDescriptor }>(r: T): T => ({ ...r, descriptor: { ...r.descriptor, ring: ringDescriptor(cells, r.box) } });
    out.push({ ...photo, instances: photo.instances.map(ring), proposals: photo.proposals.map(ring) });
  }
  return out;
}

/** The photos as the ranker saw them before it read the ring (the learn eval's `--no-ring`). */
export function withoutRing(photos: readonly CachedPhoto[]): CachedPhoto[] {
  const strip = <T extends { descriptor: RegionDescriptor }>(r: T): T => {
    const { ring: _ring, ...descriptor } = r.descriptor;
    return { ...r, descriptor };
  };
  return photos.map((p) => ({ ...p, instances: p.instances.map(strip), proposals: p.proposals.map(strip) }));
}
