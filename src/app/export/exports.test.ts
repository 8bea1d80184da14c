import { describe, expect, it } from 'vitest';
import { PNG } from 'pngjs';
import { SegmentResponse } from '../../contract';
import type { PolygonWithHoles, Ring } from '../../engine/types';
import type { ImageEntry, Annotation } from '../../annotations/annotation';
import { toApiJson } from './apiJson';
import { toCoco } from '../../annotations/formats/coco';
import { cutOut, instanceIndexMask, pngMasksZip } from '../../annotations/formats/pngMasks';
import { readZip } from '../../annotations/formats/zip';
import { dataYaml, readDataYamlNames, toYoloSeg } from '../../annotations/formats/yolo';
import { datasetCategories } from '../../annotations/formats/categories';
import { sessionDataset, type Dataset } from '../../annotations/formats/dataset';

const rect = (x: number, y: number, w: number, h: number): Ring => [
  [x, y],
  [x + w, y],
  [x + w, y + h],
  [x, y + h],
];

const image: ImageEntry = { id: 'img-1', name: 'coffee.png', width: 20, height: 10 };
const ring: PolygonWithHoles = { outer: rect(2, 2, 8, 6), holes: [rect(4, 4, 2, 2)] };
const objects: Annotation[] = [
  { id: 'a', label: 'cup', classId: 1, confidence: 0.934, color: '#f00', visible: true, polygons: [ring], source: 'local' },
  { id: 'b', label: 'spoon', classId: 3, confidence: 0.5, color: '#0f0', visible: false, polygons: [{ outer: rect(12, 1, 4, 2), holes: [] }], source: 'remote' },
  { id: 'c', label: 'cup', classId: 1, confidence: 0.8, color: '#00f', visible: true, polygons: [{ outer: rect(16, 5, 3, 3), holes: [] }], source: 'local' },
];
// Class ids are stable: "spoon" keeps id 3 although it is listed first and id 2 was deleted.
const classes = [
  { id: 3, name: 'spoon', color: '#0f0' },
  { id: 1, name: 'cup', color: '#f00' },
];
const categories = datasetCategories(classes, objects);
const doc = { images: [image], objects: { [image.id]: objects }, classes };
const dataset: Dataset = sessionDataset(doc, { includeHidden: true });
const entry = dataset.images[0];

describe('COCO export', () => {
  const coco = toCoco(dataset, { rleForHoles: false }, new Date('2026-01-01T00:00:00Z'));

  it('lists the image and the classes by their ids', () => {
    expect(coco.images).toEqual([{ id: 1, file_name: 'coffee.png', width: 20, height: 10 }]);
    expect(coco.categories.map((c) => [c.id, c.name, c.color])).toEqual([[1, 'cup', '#f00'], [3, 'spoon', '#0f0']]);
  });

  it('writes polygon segmentation, bbox and true area (holes subtracted)', () => {
    const [first, second, third] = coco.annotations;
    expect(first.category_id).toBe(1);
    expect(second.category_id).toBe(3);
    expect(third.category_id).toBe(1);
    expect(first.bbox).toEqual([2, 2, 8, 6]);
    expect(first.area).toBe(48 - 4);
    const rings = first.segmentation as number[][];
    expect(rings).toHaveLength(1);
    expect(rings[0].length % 2).toBe(0);
    expect(rings[0].length).toBeGreaterThanOrEqual(6);
    expect(first.attributes).toEqual({ score: 0.93, label: 'cup', color: '#f00', visible: true, review_state: 'accepted' });
    expect(first).not.toHaveProperty('score');
    expect(first.iscrowd).toBe(0);
  });

  it('writes an object with holes as compressed RLE when asked, the same pixels', () => {
    const rle = toCoco(dataset, { rleForHoles: true }).annotations;
    expect(typeof (rle[0].segmentation as { counts: unknown }).counts).toBe('string');
    expect(rle[0].area).toBe(44);
    expect(Array.isArray(rle[2].segmentation)).toBe(true); // no hole: still a polygon
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
  it('writes normalised polygons with class index = class id - 1', () => {
    const lines = toYoloSeg(entry).trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toBe('2 0.600000 0.100000 0.800000 0.100000 0.800000 0.300000 0.600000 0.300000');
    for (const line of lines) {
      const values = line.split(' ').slice(1).map(Number);
      expect(values.every((v) => v >= 0 && v <= 1)).toBe(true);
    }
  });

  it('names classes in id order in data.yaml, keeping the place of a deleted id', () => {
    expect(readDataYamlNames(dataYaml(categories, false))).toEqual(['cup', 'unused_2', 'spoon']);
  });

  it('puts unlabelled objects under an "unlabelled" category after the highest id', () => {
    const withUnlabelled = datasetCategories([{ id: 1, name: 'cup', color: '#f00' }], [{ classId: 1 }, { classId: null }]);
    expect(withUnlabelled).toEqual([
      { id: 1, name: 'cup', color: '#f00' },
      { id: 2, name: 'unlabelled', color: '#9e9e9e' },
    ]);
  });
});

describe('PNG mask export', () => {
  it('paints each object with its index and leaves holes empty', () => {
    const mask = instanceIndexMask(entry);
    const at = (x: number, y: number) => mask[y * image.width + x];
    expect(at(0, 0)).toBe(0);
    expect(at(3, 3)).toBe(1);
    expect(at(4, 4)).toBe(0); // hole
    expect(at(13, 1)).toBe(2);
    expect(at(17, 6)).toBe(3);
    expect(mask.filter((v) => v === 1).length).toBe(44);
  });

  it('zips an instance PNG, a semantic PNG (value = class id) and a legend stating the stacking order', async () => {
    const files = await readZip(await pngMasksZip(dataset));
    expect(files.map((f) => f.name)).toEqual(['coffee.instances.png', 'coffee.semantic.png', 'coffee.legend.json']);
    const instances = PNG.sync.read(Buffer.from(files[0].data));
    const semantic = PNG.sync.read(Buffer.from(files[1].data));
    expect([instances.width, instances.height]).toEqual([20, 10]);
    expect(instances.data[(3 * 20 + 3) * 4]).toBe(1);
    expect(semantic.data[(1 * 20 + 13) * 4]).toBe(3); // the spoon: class id 3
    const legend = JSON.parse(new TextDecoder().decode(files[2].data));
    expect(legend.stacking).toMatch(/largest first/);
    expect(legend.instances[1]).toEqual({ value: 2, objectId: 'b', label: 'spoon', classId: 3, className: 'spoon' });
  });

  it('resolves overlaps by the painting order: the smaller object owns the pixel', () => {
    const over: Annotation = { ...objects[2], id: 'd', polygons: [{ outer: rect(3, 3, 2, 2), holes: [] }] };
    const mask = instanceIndexMask(sessionDataset({ ...doc, objects: { [image.id]: [...objects, over] } }, { includeHidden: true }).images[0]);
    expect(mask[3 * 20 + 3]).toBe(4);
  });
});

describe('cut-out', () => {
  it('crops the object to its box on transparency', () => {
    const rgba = { width: 20, height: 10, data: new Uint8Array(20 * 10 * 4).fill(200) };
    const cut = cutOut(rgba, objects[0])!;
    expect([cut.width, cut.height]).toEqual([8, 6]);
    expect(cut.data[3]).toBe(200); // inside: opaque
    expect(cut.data[((2 * 8) + 2) * 4 + 3]).toBe(0); // the hole: transparent
  });
});
