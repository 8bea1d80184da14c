import { describe, expect, it } from 'vitest';
import { PNG } from 'pngjs';
import { SegmentResponse } from '../../contract';
import type { PolygonWithHoles, Ring } from '../../engine/types';
import type { ImageEntry, SegObject } from '../state/model';
import { toApiJson } from './apiJson';
import { toCoco } from './coco';
import { instanceIndexMask, toMaskPng } from './maskPng';
import { toYoloSeg } from './yolo';

const rect = (x: number, y: number, w: number, h: number): Ring => [
  [x, y],
  [x + w, y],
  [x + w, y + h],
  [x, y + h],
];

const image: ImageEntry = { id: 'img-1', name: 'coffee.png', width: 20, height: 10 };
const ring: PolygonWithHoles = { outer: rect(2, 2, 8, 6), holes: [rect(4, 4, 2, 2)] };
const objects: SegObject[] = [
  { id: 'a', label: 'cup', confidence: 0.934, color: '#f00', visible: true, polygons: [ring], source: 'local' },
  { id: 'b', label: 'spoon', confidence: 0.5, color: '#0f0', visible: false, polygons: [{ outer: rect(12, 1, 4, 2), holes: [] }], source: 'remote' },
  { id: 'c', label: 'cup', confidence: 0.8, color: '#00f', visible: true, polygons: [{ outer: rect(16, 5, 3, 3), holes: [] }], source: 'local' },
];

describe('COCO export', () => {
  const coco = toCoco([{ image, objects }], new Date('2026-01-01T00:00:00Z'));

  it('lists the image and one category per distinct label', () => {
    expect(coco.images).toEqual([{ id: 1, file_name: 'coffee.png', width: 20, height: 10 }]);
    expect(coco.categories.map((c) => [c.id, c.name])).toEqual([[1, 'cup'], [2, 'spoon']]);
  });

  it('writes polygon segmentation, bbox and true area (holes subtracted)', () => {
    const [first, second, third] = coco.annotations;
    expect(first.category_id).toBe(1);
    expect(second.category_id).toBe(2);
    expect(third.category_id).toBe(1);
    expect(first.bbox).toEqual([2, 2, 8, 6]);
    expect(first.area).toBe(48 - 4);
    expect(first.segmentation).toHaveLength(1);
    expect(first.segmentation[0].length % 2).toBe(0);
    expect(first.segmentation[0].length).toBeGreaterThanOrEqual(6);
    expect(first.score).toBe(0.93);
    expect(first.iscrowd).toBe(0);
  });
});

describe('API JSON export', () => {
  it('validates against the service contract and groups by label', () => {
    const json = SegmentResponse.parse(toApiJson(objects));
    expect(json.prompt_results.map((r) => r.echo.text)).toEqual(['cup', 'spoon']);
    expect(json.prompt_results[0].predictions).toHaveLength(2);
    expect(json.prompt_results[1].predictions[0].masks[0]).toEqual(rect(12, 1, 4, 2));
  });
});

describe('YOLO segmentation export', () => {
  it('writes normalised polygons with 0-based class ids', () => {
    const { labels, classes } = toYoloSeg(image, objects);
    expect(classes).toEqual(['cup', 'spoon']);
    const lines = labels.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toBe('1 0.600000 0.100000 0.800000 0.100000 0.800000 0.300000 0.600000 0.300000');
    for (const line of lines) {
      const values = line.split(' ').slice(1).map(Number);
      expect(values.every((v) => v >= 0 && v <= 1)).toBe(true);
    }
  });
});

describe('PNG mask export', () => {
  it('paints each object with its index and leaves holes empty', () => {
    const mask = instanceIndexMask(image, objects);
    const at = (x: number, y: number) => mask[y * image.width + x];
    expect(at(0, 0)).toBe(0);
    expect(at(3, 3)).toBe(1);
    expect(at(4, 4)).toBe(0); // hole
    expect(at(13, 1)).toBe(2);
    expect(at(17, 6)).toBe(3);
    expect(mask.filter((v) => v === 1).length).toBe(44);
  });

  it('encodes a PNG of the image size', async () => {
    const png = PNG.sync.read(Buffer.from(await toMaskPng(image, objects)));
    expect([png.width, png.height]).toEqual([20, 10]);
    expect(png.data[(3 * 20 + 3) * 4]).toBe(1);
  });
});
