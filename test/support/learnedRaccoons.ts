/**
 * A learned model taught "raccoon" the way a person in the studio teaches it: on a few seed photos
 * of `../shared/eval/raccoon` (read at test time, never copied into the repo) each raccoon is an
 * object made from its box (SAM's answer to the box, as the studio's box tool gives), and regions
 * of the rest of the photo (SAM's answer to a click there) are rejected proposals. Descriptors
 * come from the real engine and detectors (engine/learn/describePhoto.ts), as the studio's do.
 *
 * Building it runs the encoder on every seed photo, so the model is kept on disk under the
 * git-ignored `test/.cache/` and built again only when its inputs change.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { decodeImage } from '../../src/engine/adapters/nodeImage';
import { loadNodeEngine } from '../../src/engine/adapters/ortNode';
import { loadNodeDetectors } from '../../src/engine/adapters/textNode';
import { boxIoU, type CornerBox } from '../../src/engine/text/detector';
import { cornerToCenterBox } from '../../src/engine/text/pipeline';
import { describeMasks, detectorsForDescriptors, photoContext } from '../../src/engine/learn/describePhoto';
import { maskBox, type RegionDescriptor } from '../../src/engine/learn/descriptors';
import { LEARNED_CLASSES_VERSION, LearnedClasses, type LearnedClassesState } from '../../src/engine/learn/learnedClasses';

export const RACCOON_DIR = resolve(process.env.RACCOON_DIR ?? resolve(import.meta.dirname, '../../../shared/eval/raccoon'));
export const HAS_RACCOONS = existsSync(join(RACCOON_DIR, 'instances.json'));
const CACHE_DIR = resolve(import.meta.dirname, '../.cache');

/** Clicks on a grid this many cells a side; those off every raccoon teach the background. */
const BACKGROUND_GRID = 6;

interface RaccoonFile {
  images: { id: number; file_name: string; width: number; height: number }[];
  annotations: { image_id: number; bbox: [number, number, number, number] }[];
}

export async function raccoonBoxes(): Promise<Map<string, CornerBox[]>> {
  const file = JSON.parse(await readFile(join(RACCOON_DIR, 'instances.json'), 'utf8')) as RaccoonFile;
  const boxes = new Map<string, CornerBox[]>();
  for (const image of file.images) {
    const own = file.annotations.filter((a) => a.image_id === image.id).map(({ bbox: [x, y, w, h] }) => ({ x0: x, y0: y, x1: x + w, y1: y + h }));
    boxes.set(image.file_name, own);
  }
  return boxes;
}

export const raccoonBytes = (name: string) => readFile(join(RACCOON_DIR, 'images', name));

/** The model taught `classId` on the seed photos (from the cache when it was built before). */
export async function raccoonModel(seedPhotos: readonly string[], classId: string): Promise<LearnedClassesState> {
  const key = createHash('sha256').update(JSON.stringify({ seedPhotos, classId, version: LEARNED_CLASSES_VERSION, grid: BACKGROUND_GRID })).digest('hex').slice(0, 16);
  const cached = join(CACHE_DIR, `learned-raccoon-${key}.json`);
  try {
    return JSON.parse(await readFile(cached, 'utf8')) as LearnedClassesState;
  } catch {
    // Not built yet.
  }
  const boxes = await raccoonBoxes();
  const engine = await loadNodeEngine({ threads: 1, embeddingCacheSize: 1 });
  const detectors = await loadNodeDetectors({ threads: 1 });
  const model = new LearnedClasses();
  try {
    for (const name of seedPhotos) {
      const image = await decodeImage(await raccoonBytes(name));
      const { imageKey } = await engine.embed(image, name);
      const photo = photoContext(engine, imageKey, image, await detectorsForDescriptors(image, detectors));
      const raccoons = boxes.get(name) ?? [];
      const examples: { descriptor: RegionDescriptor; classId: string | null }[] = [];
      for (const box of raccoons) {
        const { candidates } = await engine.predict(imageKey, { box: cornerToCenterBox(box) }, { multimask: false, mirrorAverage: false });
        examples.push({ descriptor: describeMasks(photo, [candidates[0].mask])[0], classId });
      }
      for (let gy = 0; gy < BACKGROUND_GRID; gy++) {
        for (let gx = 0; gx < BACKGROUND_GRID; gx++) {
          const point = { x: ((gx + 0.5) * image.width) / BACKGROUND_GRID, y: ((gy + 0.5) * image.height) / BACKGROUND_GRID };
          if (raccoons.some((b) => point.x >= b.x0 && point.x <= b.x1 && point.y >= b.y0 && point.y <= b.y1)) continue;
          // Each of SAM's three answers to the click (a part, the object, its surroundings) is a region segment everything could propose.
          const { candidates } = await engine.predict(imageKey, { points: [point] }, { multimask: true, mirrorAverage: false });
          for (const { mask } of candidates) {
            const box = maskBox(mask);
            // A click beside a raccoon can still outline it: only what stays off every raccoon is background.
            if (!box || raccoons.some((r) => boxIoU(r, box) >= 0.3)) continue;
            examples.push({ descriptor: describeMasks(photo, [mask])[0], classId: null });
          }
        }
      }
      model.learnAll(examples);
      engine.forget();
    }
  } finally {
    await engine.release();
    for (const d of detectors) await d.release();
  }
  const state = model.toJSON();
  await mkdir(CACHE_DIR, { recursive: true });
  await writeFile(cached, JSON.stringify(state));
  return state;
}
