import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rasterizeSegmentation, type CocoSegmentation } from '../../../bench/evalCoco/rasterize';
import { decodeImage } from '../adapters/nodeImage';
import { loadNodeEngine } from '../adapters/ortNode';
import type { SegmentationEngine } from '../engine';
import { maskIoU } from '../polygons';
import type { BinaryMask } from '../types';
import { findSimilar } from './similar';
import { sharedPath } from '../../../test/support/sharedData';

// A real COCO photo with several instances of one thing, read from the shared evaluation folder.
const COCO = sharedPath('eval/coco-tiny');

interface Coco {
  images: { id: number; file_name: string; width: number; height: number }[];
  annotations: { image_id: number; category_id: number; iscrowd: number; area: number; bbox: number[]; segmentation: CocoSegmentation }[];
  categories: { id: number; name: string }[];
}

let engine: SegmentationEngine;
const coco = JSON.parse(readFileSync(`${COCO}/instances.json`, 'utf8')) as Coco;

async function instancesOf(fileName: string, className: string) {
  const info = coco.images.find((i) => i.file_name === fileName)!;
  const category = coco.categories.find((c) => c.name === className)!.id;
  const annotations = coco.annotations
    .filter((a) => a.image_id === info.id && a.category_id === category && !a.iscrowd)
    .sort((a, b) => b.area - a.area);
  const image = await decodeImage(readFileSync(`${COCO}/images/${fileName}`));
  const truth = annotations.map((a) => rasterizeSegmentation(a.segmentation, info.width, info.height));
  return { image, annotations, truth };
}

/** The user's accepted object: SAM's mask for the ground-truth box of the largest instance. */
async function acceptLargest(imageKey: string, bbox: number[]): Promise<BinaryMask> {
  const [x, y, w, h] = bbox;
  const { candidates } = await engine.predict(imageKey, { box: { x: x + w / 2, y: y + h / 2, width: w, height: h } }, { multimask: false, mirrorAverage: false });
  return candidates[0].mask;
}

beforeAll(async () => {
  engine = await loadNodeEngine({ threads: 1 });
});
afterAll(async () => {
  await engine.release();
});

describe('findSimilar', () => {
  it.each([
    ['000000253452.jpg', 'donut'],
    ['000000338304.jpg', 'sheep'],
  ])('on %s, from one %s finds another, and never the source again', async (fileName, className) => {
    const { image, annotations, truth } = await instancesOf(fileName, className);
    expect(annotations.length).toBeGreaterThanOrEqual(3);
    const { imageKey } = await engine.embed(image);
    const source = await acceptLargest(imageKey, annotations[0].bbox);
    expect(maskIoU(source, truth[0])).toBeGreaterThan(0.7);

    const found = await findSimilar(engine, imageKey, source);
    const others = truth.slice(1);
    const hits = found.filter((f) => others.some((t) => maskIoU(f.mask, t) >= 0.5));
    expect(hits.length).toBeGreaterThanOrEqual(1);
    for (const f of found) {
      expect(maskIoU(f.mask, source)).toBeLessThan(0.3);
      expect(f.similarity).toBeGreaterThanOrEqual(0.7);
    }
    // Ranked best first, no duplicates.
    for (let i = 1; i < found.length; i++) expect(found[i - 1].score).toBeGreaterThanOrEqual(found[i].score);
    for (let i = 0; i < found.length; i++) for (let j = i + 1; j < found.length; j++) expect(maskIoU(found[i].mask, found[j].mask)).toBeLessThanOrEqual(0.5);
    engine.forget(imageKey);
  });

  it('returns nothing for an empty source mask and rejects a mask of another size', async () => {
    const image = await decodeImage(readFileSync(sharedPath('samples/chelsea.png')));
    const { imageKey } = await engine.embed(image);
    const empty = { width: image.width, height: image.height, data: new Uint8Array(image.width * image.height) };
    expect(await findSimilar(engine, imageKey, empty)).toEqual([]);
    await expect(findSimilar(engine, imageKey, { width: 3, height: 3, data: new Uint8Array(9) })).rejects.toThrow(/mask is 3×3/);
    await expect(findSimilar(engine, 'no-such-image', empty)).rejects.toThrow(/no embedding/);
  });
});
