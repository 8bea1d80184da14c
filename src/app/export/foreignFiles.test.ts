/**
 * Files written by another tool's test suite (Datumaro's fixtures in ../shared/formats): importing
 * them keeps what the studio can hold and lists what it cannot.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sharedPath } from '../../../test/support/sharedData';
import { maskArea } from '../geometry/maskPaint';
import { objectMask } from '../geometry/objectMask';
import { addImage } from '../state/documentOps';
import { emptyDocument } from '../state/model';
import { type ImageEntry } from '../../annotations/annotation';
import { importAnnotations } from './importAnnotations';
import { readDatasetFiles } from '../../annotations/formats/readFiles';
import { OUTLINE } from './testSession';

function filesUnder(dir: string): Array<{ name: string; bytes: Uint8Array }> {
  const root = sharedPath(`formats/${dir}`);
  const walk = (d: string): string[] => readdirSync(d).flatMap((n) => (statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : [join(d, n)]));
  return walk(root).map((path) => ({ name: relative(root, path), bytes: new Uint8Array(readFileSync(path)) }));
}

const session = (...images: ImageEntry[]) => images.reduce((d, i) => addImage(d, i), emptyDocument());
let n = 0;
const newId = () => `o${++n}`;

describe('COCO from Datumaro: category ids 1, 2, 4, uncompressed RLE, attributes, a box-only annotation', () => {
  it('keeps the file’s ids, reads the RLE, reads the box-only annotation as a box and offers the photos', async () => {
    const read = await readDatasetFiles(filesUnder('coco'));
    expect(read.images.map((f) => f.name).sort()).toEqual(['images/train/a.jpg', 'images/val/b.jpg']);
    expect(read.dataset.problems).toEqual([]);
    const a = { id: 'a', name: 'a.jpg', width: 10, height: 5 };
    const b = { id: 'b', name: 'b.jpg', width: 5, height: 10 };
    const result = importAnnotations(session(a, b), read.dataset, newId, OUTLINE);
    expect(result.doc.classes.map((c) => [c.id, c.name])).toEqual([
      [1, 'a'],
      [2, 'b'],
      [4, 'c'],
    ]);
    const objects = result.doc.objects.b;
    expect(objects.map((o) => o.classId)).toEqual([1, 2]);
    expect(maskArea(objectMask(objects[0], 5, 10))).toBe(2);
    expect(maskArea(objects[1].mask!)).toBe(20); // RLE [0, 20, 30], column-major: the two left columns
    expect(objects[1].mask!.data[9 * 5 + 1]).toBe(1);
    expect(objects[1].mask!.data[2]).toBe(0);
    expect(result.doc.objects.a.map((o) => [o.kind, o.box, o.classId, o.polygons.length])).toEqual([['box', [2, 2, 3, 1], 2, 0]]);
    expect(importAnnotations(result.doc, read.dataset, newId, OUTLINE).added).toBe(0);
  });
});

describe('CVAT for images 1.1 from Datumaro: boxes, polylines, points, an unlabelled polygon', () => {
  it('imports the polygon as an unlabelled object and the box as a box, lists the rest, keeps the labels', async () => {
    const read = await readDatasetFiles(filesUnder('cvat-images-1.1'));
    expect(read.dataset.problems).toEqual(['img0.jpg: 1 polyline not imported (only polygons and boxes are read)', 'img1.jpg: 1 points not imported (only polygons and boxes are read)']);
    expect(read.images.map((f) => f.name).sort()).toEqual(['images/img0.jpg', 'images/img1.jpg']);
    const result = importAnnotations(session({ id: 'i0', name: 'img0.jpg', width: 8, height: 8 }, { id: 'i1', name: 'img1.jpg', width: 10, height: 10 }), read.dataset, newId, OUTLINE);
    expect(result.doc.classes.map((c) => c.name)).toEqual(['label1', 'label2']);
    expect(result.doc.objects.i1).toHaveLength(1);
    expect(result.doc.objects.i1[0].classId).toBeNull();
    const box = result.doc.objects.i0.find((o) => o.kind === 'box')!;
    expect([box.box, result.doc.classes.find((c) => c.id === box.classId)?.name]).toEqual([[0, 2, 4, 2], 'label1']);
  });
});

describe('Pascal VOC from Datumaro: RGB masks in the VOC colour map, an object with no pixels', () => {
  it('reads the instance mask for the first object and the second, without pixels, as its bndbox', async () => {
    const read = await readDatasetFiles(filesUnder('voc'));
    expect(read.images.map((f) => f.name).sort()).toEqual(['JPEGImages/2007_000001.jpg', 'JPEGImages/2007_000002.jpg']);
    expect(read.dataset.problems).toEqual([]);
    const result = importAnnotations(session({ id: 'v', name: '2007_000001.jpg', width: 20, height: 10 }), read.dataset, newId, OUTLINE);
    const [cat] = result.doc.objects.v;
    expect(result.doc.classes.find((c) => c.id === cat.classId)?.name).toBe('cat');
    expect(result.doc.classes.find((c) => c.name === 'cat')?.id).toBe(8); // VOC's own index of "cat"
    expect(maskArea(cat.mask!)).toBe(200);
    const person = result.doc.objects.v[1];
    // bndbox 4,5 – 6,7 (1-based, both ends inside) is 3 × 3 pixels from (3, 4).
    expect([person.kind, person.box, result.doc.classes.find((c) => c.id === person.classId)?.name]).toEqual(['box', [3, 4, 3, 3], 'person']);
  });
});
