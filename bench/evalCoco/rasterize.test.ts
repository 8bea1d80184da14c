import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeRleString, rasterizeCocoPolygons, rasterizeRle, rasterizeSegmentation, type CocoSegmentation } from './rasterize';
import { sharedPath } from '../../test/support/sharedData';

const count = (data: Uint8Array): number => data.reduce((s, v) => s + v, 0);

describe('COCO polygons', () => {
  it('fills the pixels whose centres are inside an axis-aligned square', () => {
    const mask = rasterizeCocoPolygons([[2, 1, 6, 1, 6, 4, 2, 4]], 8, 6);
    const rows = Array.from({ length: 6 }, (_, y) => Array.from(mask.data.slice(y * 8, y * 8 + 8)).join(''));
    expect(rows).toEqual(['00000000', '00111100', '00111100', '00111100', '00000000', '00000000']);
  });

  it('fills a triangle with about its geometric area', () => {
    const mask = rasterizeCocoPolygons([[0, 0, 100, 0, 0, 100]], 120, 120);
    expect(Math.abs(count(mask.data) - 5000)).toBeLessThan(100);
  });

  it('ORs the parts of a multi-part annotation and clips to the image', () => {
    const mask = rasterizeCocoPolygons([[0, 0, 4, 0, 4, 4, 0, 4], [-5, 6, 3, 6, 3, 20, -5, 20]], 10, 10);
    expect(count(mask.data)).toBe(16 + 3 * 4);
  });

  it('skips degenerate parts', () => {
    expect(count(rasterizeCocoPolygons([[1, 1, 5, 5]], 8, 8).data)).toBe(0);
  });
});

describe('COCO run-length encodings', () => {
  it('decodes uncompressed counts in column-major order', () => {
    // 3 rows × 2 columns: skip 1, set 2 (rows 1-2 of column 0), skip 1, set 2 (rows 1-2 of column 1)... last run 0 pixels.
    const mask = rasterizeRle([1, 2, 1, 2], 3, 2);
    expect(Array.from(mask.data)).toEqual([0, 0, 1, 1, 1, 1]);
  });

  it('decodes the compressed string form (pycocotools encoding of counts)', () => {
    // Produced by a Python transcription of pycocotools' rleToString for counts [3, 5, 2, 10, 40, 7, 1000, 3]
    // (differences from the run two back, 5-bit groups, sign bit, continuation bit).
    expect(decodeRleString('3525V1MPn0L')).toEqual([3, 5, 2, 10, 40, 7, 1000, 3]);
  });

  it('rasterizes annotations of the evaluation set (crowd RLE and polygons) to the areas they encode', () => {
    const coco = JSON.parse(readFileSync(sharedPath('eval/coco-tiny/instances.json'), 'utf8')) as {
      images: { id: number; width: number; height: number }[];
      annotations: { image_id: number; iscrowd: number; area: number; segmentation: CocoSegmentation }[];
    };
    const checked = [coco.annotations.find((a) => a.iscrowd === 1)!, ...coco.annotations.filter((a) => a.iscrowd === 0).slice(0, 20)];
    for (const a of checked) {
      const info = coco.images.find((i) => i.id === a.image_id)!;
      const mask = rasterizeSegmentation(a.segmentation, info.width, info.height);
      if (a.iscrowd) {
        // Crowd regions: exactly the foreground runs (COCO's recorded `area` of crowds is not their pixel count).
        const counts = (a.segmentation as { counts: number[] }).counts;
        expect(count(mask.data)).toBe(counts.filter((_, k) => k % 2 === 1).reduce((x, y) => x + y, 0));
      } else {
        // Polygon areas were recorded from COCO's own rasterizer; ours agrees within boundary pixels.
        expect(Math.abs(count(mask.data) - a.area), `annotation area ${a.area}`).toBeLessThanOrEqual(Math.max(8, 0.08 * a.area));
      }
    }
  });
});
