import { describe, expect, it } from 'vitest';
import { DEFAULT_SEGMENTATION_OPTIONS } from '../../engine/options';
import { emptyMask, maskIoU, paintStroke } from '../geometry/maskPaint';
import { objectMask } from '../geometry/objectMask';
import { addClass } from '../state/classOps';
import { addImage } from '../state/documentOps';
import { emptyDocument } from '../state/model';
import { addPaintedObject } from '../state/objectOps';
import { toCoco } from './coco';
import { readCoco, readDatasetFiles } from './datasetReaders';
import { importAnnotations } from './importAnnotations';
import { sessionDataset } from './sessionDataset';
import { yoloZip } from './yolo';
import { readZip, textEntry, writeZip } from './zip';

const OUTLINE = { tolerance: DEFAULT_SEGMENTATION_OPTIONS.tolerance };
const a = { id: 'img-a', name: 'a.png', width: 64, height: 48 };
const b = { id: 'img-b', name: 'b.jpg', width: 50, height: 50 };

function session() {
  let doc = addImage(addImage(emptyDocument(), a), b);
  doc = addClass(addClass(doc, 'cat'), 'dog');
  // A ring with a hole on image a (class cat), a two-part object on image b (class dog).
  const ring = paintStroke(paintStroke(emptyMask(64, 48), [[30, 24]], 14, 1), [[30, 24]], 5, 0);
  doc = addPaintedObject(doc, 'img-a', 'ring', ring, OUTLINE);
  doc = { ...doc, activeClassId: 2 };
  doc = addPaintedObject(doc, 'img-b', 'pair', paintStroke(paintStroke(emptyMask(50, 50), [[10, 10]], 6, 1), [[38, 36]], 7, 1), OUTLINE);
  return doc;
}

let ids = 0;
const newId = () => `imported-${++ids}`;

describe('zip', () => {
  it('reads back what it writes', async () => {
    const files = await readZip(writeZip([textEntry('data.yaml', 'names: [a]\n'), { name: 'labels/x.txt', data: new Uint8Array([1, 2, 3]) }]));
    expect(files.map((f) => f.name)).toEqual(['data.yaml', 'labels/x.txt']);
    expect([...files[1].data]).toEqual([1, 2, 3]);
  });
});

describe('dataset round trips', () => {
  it('COCO out and back in: same objects, same classes (IoU ≥ 0.99)', () => {
    const doc = session();
    const { entries, categories } = sessionDataset(doc, { includeHidden: true});
    const coco = JSON.parse(JSON.stringify(toCoco(entries, categories)));
    expect(coco.annotations.map((x: { category_id: number }) => x.category_id)).toEqual([1, 2]);
    const fresh = addImage(addImage(emptyDocument(), b), a);
    const result = importAnnotations(fresh, readCoco(coco).annotations, newId, OUTLINE);
    expect(result.unmatched).toEqual([]);
    expect(result.doc.classes.map((c) => c.name)).toEqual(['cat', 'dog']);
    for (const [imageId, image] of [['img-a', a], ['img-b', b]] as const) {
      const [original] = doc.objects[imageId];
      const [back] = result.doc.objects[imageId];
      expect(maskIoU(objectMask(original, image.width, image.height), back.mask!)).toBeGreaterThanOrEqual(0.99);
    }
    expect(result.doc.objects['img-a'][0].polygons[0].holes).toHaveLength(1);
    expect(result.doc.objects['img-b'][0].polygons).toHaveLength(2);
  });

  it('YOLO zip out and back in through data.yaml', async () => {
    const doc = session();
    const { entries, categories } = sessionDataset(doc, { includeHidden: true});
    const zip = yoloZip(entries, categories, false);
    const read = await readDatasetFiles([{ name: 'export.zip', bytes: zip }]);
    expect(read.problems).toEqual([]);
    const result = importAnnotations(addImage(addImage(emptyDocument(), a), b), read.annotations, newId, OUTLINE);
    expect(result.doc.classes.map((c) => c.name)).toEqual(['cat', 'dog']);
    const back = result.doc.objects['img-a'][0];
    expect(maskIoU(objectMask(doc.objects['img-a'][0], 64, 48), back.mask!)).toBeGreaterThanOrEqual(0.97);
  });

  it('lists what did not match an open image instead of dropping it silently', () => {
    const doc = session();
    const { entries, categories } = sessionDataset(doc, { includeHidden: true});
    const result = importAnnotations(addImage(emptyDocument(), a), readCoco(toCoco(entries, categories)).annotations, newId, OUTLINE);
    expect(result.added).toBe(1);
    expect(result.unmatched).toEqual(['b.jpg: no open image of that name (1 annotation)']);
  });

  it('honours "include hidden objects"', () => {
    let doc = session();
    doc = { ...doc, objects: { ...doc.objects, 'img-a': doc.objects['img-a'].map((o) => ({ ...o, visible: false })) } };
    expect(sessionDataset(doc, { includeHidden: false}).entries[0].objects).toHaveLength(0);
    expect(sessionDataset(doc, { includeHidden: true}).entries[0].objects).toHaveLength(1);
  });
});
