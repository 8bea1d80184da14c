/**
 * Boxes and masks mixed, through every dataset format: the formats that hold boxes give each back
 * as a box (a detection export writes a mask as its box), the ones that do not leave boxes out and
 * say so, and a detection dataset (YOLO labels of five numbers, COCO without segmentation, VOC
 * boxes without PNGs) imports as boxes.
 */
import { describe, expect, it } from 'vitest';
import { maskIoU } from '../geometry/maskPaint';
import { objectMask } from '../geometry/objectMask';
import { addImage } from '../state/documentOps';
import { emptyDocument } from '../state/model';
import { isBox } from '../../annotations/annotation';
import { UNLABELLED } from '../../annotations/formats/categories';
import { FORMATS, writeFormat } from '../../annotations/formats/registry';
import { toCoco } from '../../annotations/formats/coco';
import { sessionDataset, type Dataset } from '../../annotations/formats/dataset';
import { readDatasetFiles } from '../../annotations/formats/readFiles';
import { readZip, textEntry, writeZip } from '../../annotations/formats/zip';
import { importAnnotations } from './importAnnotations';
import { IMAGE_A, IMAGE_B, OUTLINE, sessionWithBoxes, testSession } from './testSession';

let ids = 0;
const newId = () => `imported-${++ids}`;
const fresh = () => [IMAGE_B, IMAGE_A].reduce((d, i) => addImage(d, i), emptyDocument());

const nameOf = (dataset: Dataset, categoryId: number) => dataset.categories.find((c) => c.id === categoryId)!.name;

async function roundTrip(formatId: string) {
  const format = FORMATS.find((f) => f.id === formatId)!;
  const dataset = sessionDataset(sessionWithBoxes(), { includeHidden: true });
  const { file, notes } = await writeFormat(format, dataset, {});
  const read = await readDatasetFiles([{ name: file.name, bytes: file.bytes }]);
  const result = importAnnotations(fresh(), read.dataset, newId, OUTLINE);
  return { dataset, notes, read, result };
}

const BOX_FORMATS = ['coco', 'yolo-detection', 'maskwright', 'cvat', 'labelme', 'voc'];

describe('the session with boxes', () => {
  it('exports three boxes, the one past the edge clipped, beside five masks', () => {
    const dataset = sessionDataset(sessionWithBoxes(), { includeHidden: true });
    const objects = dataset.images.flatMap((e) => e.objects);
    expect(objects.filter((o) => o.kind === 'box').map((o) => o.geometry.bbox)).toEqual([
      [4, 6, 20, 30],
      [80, 40, 16, 24],
      [10, 50, 25, 12],
    ]);
    expect(objects.filter((o) => o.kind === 'mask')).toHaveLength(5);
  });
});

describe.each(BOX_FORMATS)('%s round trip of boxes and masks mixed', (formatId) => {
  it('gives back each box as a box (within 0.01 px) and each mask as a mask (IoU ≥ 0.99) — a detection file each mask as its box — in order, with class names', async () => {
    const { dataset, notes, read, result } = await roundTrip(formatId);
    // A detection file says it wrote each mask as its box; the others have nothing to say.
    expect(notes).toEqual(formatId === 'yolo-detection' ? ['YOLO detection zip writes masks as their boxes: 5 masks written as boxes (a.png: object 1, a.png: object 2, a.png: object 3, b.jpg: object 1, b.jpg: object 2)'] : []);
    expect(read.dataset.problems).toEqual([]);
    expect(result.unmatched).toEqual([]);
    for (const entry of dataset.images) {
      const back = result.doc.objects[entry.image.id] ?? [];
      expect(back.length, entry.image.name).toBe(entry.objects.length);
      entry.objects.forEach(({ kind, geometry, categoryId }, i) => {
        const object = back[i];
        expect(result.doc.classes.find((c) => c.id === object.classId)?.name ?? UNLABELLED).toBe(nameOf(dataset, categoryId));
        if (kind === 'box' || formatId === 'yolo-detection') {
          expect(isBox(object), `${entry.image.name} object ${i + 1} is a box`).toBe(true);
          object.box!.forEach((v, j) => expect(Math.abs(v - geometry.bbox[j])).toBeLessThanOrEqual(0.01));
        } else {
          expect(object.kind ?? 'mask').toBe('mask');
          expect(maskIoU(geometry.mask, objectMask(object, entry.image.width, entry.image.height))).toBeGreaterThanOrEqual(0.99);
        }
      });
    }
  });

  it('adds nothing when the same file is imported again', async () => {
    const { read, result } = await roundTrip(formatId);
    const again = importAnnotations(result.doc, read.dataset, newId, OUTLINE);
    expect(again.added).toBe(0);
    expect(again.alreadyPresent).toBe(8);
  });
});

describe('formats that cannot hold a box', () => {
  it.each([
    ['yolo', 'YOLO segmentation zip'],
    ['png-masks', 'PNG masks zip'],
  ])('%s leaves every box out and names them in the export notes', async (formatId, label) => {
    const format = FORMATS.find((f) => f.id === formatId)!;
    expect(format.holds).toEqual({ mask: true, box: false, tag: false });
    const { notes } = await writeFormat(format, sessionDataset(sessionWithBoxes(), { includeHidden: true }), {});
    expect(notes).toEqual([`${label} cannot hold boxes: 3 boxes left out (a.png: box 4, a.png: box 5, b.jpg: box 3)`]);
  });

  it('YOLO segmentation writes the masks alone: the file is the one of the session without boxes', async () => {
    const yolo = FORMATS.find((f) => f.id === 'yolo')!;
    const withBoxes = await writeFormat(yolo, sessionDataset(sessionWithBoxes(), { includeHidden: true }), {});
    const without = await writeFormat(yolo, sessionDataset(testSession(), { includeHidden: true }), {});
    const labels = async (bytes: Uint8Array) => (await readZip(bytes)).filter((e) => e.name.startsWith('labels/')).map((e) => [e.name, new TextDecoder().decode(e.data)]);
    expect(await labels(withBoxes.file.bytes)).toEqual(await labels(without.file.bytes));
  });

  it('every format declares what it holds; only the segmentation-only and the tags-only ones refuse boxes', () => {
    expect(FORMATS.filter((f) => !f.holds.box).map((f) => f.id)).toEqual(['yolo', 'png-masks', 'tags-csv', 'class-folders']);
    expect(FORMATS.filter((f) => !f.holds.mask).map((f) => f.id)).toEqual(['tags-csv', 'class-folders']);
  });
});

describe('COCO with boxes', () => {
  it('writes a box as its bbox with no segmentation and area width × height', () => {
    const coco = toCoco(sessionDataset(sessionWithBoxes(), { includeHidden: true }));
    const boxes = coco.annotations.filter((a) => Array.isArray(a.segmentation) && a.segmentation.length === 0);
    expect(boxes.map((a) => [a.bbox, a.area])).toEqual([
      [[4, 6, 20, 30], 600],
      [[80, 40, 16, 24], 384],
      [[10, 50, 25, 12], 300],
    ]);
  });
});

describe('YOLO detection follows Ultralytics’ rules', () => {
  async function exported() {
    const format = FORMATS.find((f) => f.id === 'yolo-detection')!;
    const dataset = sessionDataset(sessionWithBoxes(), { includeHidden: true });
    const { file } = await writeFormat(format, dataset, {});
    const entries = await readZip(file.bytes);
    const text = (name: string) => new TextDecoder().decode(entries.find((e) => e.name === name)!.data);
    return { dataset, entries, text };
  }

  it('one line per object (boxes and masks), five values: an index of data.yaml and cx cy w h in [0, 1]', async () => {
    const { dataset, text } = await exported();
    for (const entry of dataset.images) {
      const lines = text(`labels/${entry.image.name.replace(/\.[^.]+$/, '')}.txt`).trim().split('\n');
      expect(lines).toHaveLength(entry.objects.length);
      lines.forEach((line, i) => {
        const values = line.split(' ');
        expect(values).toHaveLength(5);
        expect(Number(values[0])).toBe(entry.objects[i].categoryId - 1);
        for (const v of values.slice(1).map(Number)) {
          expect(v).toBeGreaterThanOrEqual(0);
          expect(v).toBeLessThanOrEqual(1);
        }
        const [x, y, w, h] = entry.objects[i].geometry.bbox;
        const [cx, cy, nw, nh] = values.slice(1).map(Number);
        expect([cx * entry.image.width, cy * entry.image.height, nw * entry.image.width, nh * entry.image.height].map((v) => Math.round(v * 100) / 100)).toEqual([x + w / 2, y + h / 2, w, h].map((v) => Math.round(v * 100) / 100));
      });
    }
  });

  it('data.yaml names every index by class id − 1, a deleted id as unused', async () => {
    const { text } = await exported();
    const yaml = text('data.yaml');
    expect(yaml).toContain('nc: 5\nnames:\n  0: "person"\n  1: "unused_2"\n  2: "frisbee"\n  3: "cup"\n  4: "unlabelled"\n');
  });
});

describe('a detection dataset from elsewhere imports as boxes', () => {
  it('YOLO labels of five numbers a line, an empty label file and data.yaml: boxes, scaled to the image, nothing left for YOLO segmentation', async () => {
    const zip = writeZip([
      textEntry('data.yaml', 'names: [car, person]\n'),
      textEntry('labels/a.txt', '1 0.5 0.5 0.25 0.5\n0 0.1 0.1 0.2 0.2\n'),
      textEntry('labels/b.txt', ''),
    ]);
    const read = await readDatasetFiles([{ name: 'det.zip', bytes: zip }]);
    expect(read.dataset.format).toBe('yolo-detection');
    expect(read.dataset.problems).toEqual([]);
    const result = importAnnotations(fresh(), read.dataset, newId, OUTLINE);
    expect(result.doc.objects['img-a'].map((o) => [o.kind, o.box, result.doc.classes.find((c) => c.id === o.classId)?.name])).toEqual([
      ['box', [36, 16, 24, 32], 'person'],
      ['box', [0, 0, 19.2, 12.8], 'car'],
    ]);
  });

  it('VOC XML with bndboxes and no PNGs: boxes', async () => {
    const xml = '<annotation><filename>b.jpg</filename><size><width>80</width><height>80</height></size><object><name>dog</name><bndbox><xmin>11</xmin><ymin>21</ymin><xmax>40</xmax><ymax>50</ymax></bndbox></object></annotation>';
    const read = await readDatasetFiles([{ name: 'Annotations/b.xml', bytes: new TextEncoder().encode(xml) }]);
    expect(read.dataset.problems).toEqual([]);
    const result = importAnnotations(fresh(), read.dataset, newId, OUTLINE);
    expect(result.doc.objects['img-b'].map((o) => [o.kind, o.box])).toEqual([['box', [10, 20, 30, 30]]]);
  });
});
