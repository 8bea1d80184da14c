/**
 * The example path on the real SAM model: a COCO photo of a dozen apples (000000560256.jpg, from the
 * shared evaluation folder), asked by the look of one of them, as a class no detector names would be.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rasterizeSegmentation, type CocoSegmentation } from './rasterize';
import { sharedPath } from '../../test/support/sharedData';
import { decodeImage } from '../../src/engine/adapters/nodeImage';
import { loadNodeEngine } from '../../src/engine/adapters/ortNode';
import type { SegmentationEngine } from '../../src/engine/engine';
import { maskIoU } from '../../src/engine/polygons';
import type { BinaryMask } from '../../src/engine/types';
import { samCells, samDescriptor } from '../../src/engine/learn/descriptors';
import { exampleCandidates } from './exampleCandidates';

const COCO = sharedPath('eval/coco-tiny');
const APPLES = '000000560256.jpg';
const APPLE = 53;

interface Coco {
  images: { id: number; file_name: string; width: number; height: number }[];
  annotations: { image_id: number; category_id: number; iscrowd: number; area: number; segmentation: CocoSegmentation }[];
}

let engine: SegmentationEngine;
let key: string;
/** The photo's apples, largest first (the largest is a heap of them, outlined as one). */
let apples: BinaryMask[];

beforeAll(async () => {
  engine = await loadNodeEngine({ threads: 1 });
  const coco = JSON.parse(readFileSync(`${COCO}/instances.json`, 'utf8')) as Coco;
  const info = coco.images.find((i) => i.file_name === APPLES)!;
  apples = coco.annotations
    .filter((a) => a.image_id === info.id && a.category_id === APPLE && !a.iscrowd)
    .sort((a, b) => b.area - a.area)
    .map((a) => rasterizeSegmentation(a.segmentation, info.width, info.height));
  key = (await engine.embed(await decodeImage(readFileSync(`${COCO}/images/${APPLES}`)), APPLES)).imageKey;
}, 180_000);

afterAll(async () => {
  await engine?.release();
});

describe('exampleCandidates on SAM', () => {
  it("finds another apple from one apple's look", async () => {
    const entry = engine.getEmbedding(key)!;
    const example = apples[Math.floor(apples.length / 2)];
    const look = samDescriptor(samCells(entry.embedding, entry.width, entry.height), example);
    const candidates = await exampleCandidates(engine, key, [{ classId: 'apple', look }]);
    const found = apples.filter((apple) => apple !== example && candidates.some((c) => maskIoU(c.mask, apple) >= 0.5));
    expect(found.length).toBeGreaterThanOrEqual(1);
  }, 180_000);

  it('asks nothing without a look', async () => {
    expect(await exampleCandidates(engine, key, [])).toEqual([]);
  });
});
