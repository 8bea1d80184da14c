import { describe, expect, it } from 'vitest';
import { maskIoU } from '../geometry/maskPaint';
import { objectMask } from '../geometry/objectMask';
import { addImage } from '../state/documentOps';
import { emptyDocument, type StudioDocument } from '../state/model';
import { reviewStateOf } from '../../annotations/review';
import { UNLABELLED } from '../../annotations/formats/categories';
import { FORMATS } from '../../annotations/formats/registry';
import { readCoco, toCoco } from '../../annotations/formats/coco';
import { yoloZip } from '../../annotations/formats/yolo';
import { importAnnotations } from './importAnnotations';
import { readDatasetFiles } from '../../annotations/formats/readFiles';
import { sessionDataset, type Dataset } from '../../annotations/formats/dataset';
import { IMAGE_A, IMAGE_B, OUTLINE, testSession, withReviews } from './testSession';
import { readZip, textEntry, writeZip } from '../../annotations/formats/zip';

let ids = 0;
const newId = () => `imported-${++ids}`;
const fresh = (...images: Array<typeof IMAGE_A>) => images.reduce((d, i) => addImage(d, i), emptyDocument());

/** Exported objects and re-imported ones, matched in order per image: same class name, IoU ≥ 0.99. */
function expectSameObjects(dataset: Dataset, back: StudioDocument) {
  for (const entry of dataset.images) {
    const imported = back.objects[entry.image.id] ?? [];
    expect(imported.length, entry.image.name).toBe(entry.objects.length);
    entry.objects.forEach(({ geometry, categoryId }, i) => {
      const name = dataset.categories.find((c) => c.id === categoryId)!.name;
      const classOfBack = back.classes.find((c) => c.id === imported[i].classId)?.name ?? UNLABELLED;
      expect(classOfBack).toBe(name);
      expect(maskIoU(geometry.mask, objectMask(imported[i], entry.image.width, entry.image.height))).toBeGreaterThanOrEqual(0.99);
    });
  }
}

async function roundTrip(formatId: string, includeHidden = true) {
  const doc = testSession();
  const format = FORMATS.find((f) => f.id === formatId)!;
  const dataset = sessionDataset(doc, { includeHidden });
  const file = await format.write(dataset, {});
  const read = await readDatasetFiles([{ name: file.name, bytes: file.bytes }]);
  const result = importAnnotations(fresh(IMAGE_B, IMAGE_A), read.dataset, newId, OUTLINE);
  return { doc, dataset, file, read, result };
}

describe('zip', () => {
  it('reads back what it writes, entries dated', async () => {
    const zip = writeZip([textEntry('data.yaml', 'names: [a]\n'), { name: 'labels/x.txt', data: new Uint8Array([1, 2, 3]) }], new Date(2026, 10, 26, 19, 30, 12));
    const files = await readZip(zip);
    expect(files.map((f) => f.name)).toEqual(['data.yaml', 'labels/x.txt']);
    expect([...files[1].data]).toEqual([1, 2, 3]);
    const view = new DataView(zip.buffer);
    const date = view.getUint16(12, true);
    expect([(date >> 9) + 1980, (date >> 5) & 15, date & 31]).toEqual([2026, 11, 26]);
  });
});

/** The formats the studio reads back: all of them. */
const ROUND_TRIP_FORMATS = ['coco', 'yolo', 'maskwright', 'cvat', 'labelme', 'voc', 'png-masks'];

describe.each(ROUND_TRIP_FORMATS)('%s round trip of a session with holes, parts, specks, edges, hidden objects and a deleted class', (formatId) => {
  it('gives back every object (IoU ≥ 0.99), its class name and id, nothing left over', async () => {
    const { dataset, read, result } = await roundTrip(formatId);
    expect(read.dataset.problems).toEqual([]);
    expect(result.unmatched).toEqual([]);
    expectSameObjects(dataset, result.doc);
    // Class ids survive: person 1, frisbee 3, cup 4 (2 was deleted and stays free); CVAT carries names only.
    const classes = result.doc.classes.map((c) => [c.id, c.name]).sort();
    if (formatId === 'cvat') {
      expect(classes.map((c) => c[1]).sort()).toEqual(['cup', 'frisbee', 'person']);
      return;
    }
    expect(classes).toEqual([
      [1, 'person'],
      [3, 'frisbee'],
      [4, 'cup'],
    ]);
  });

  it('adds nothing when the same file is imported again', async () => {
    const { read, result } = await roundTrip(formatId);
    const again = importAnnotations(result.doc, read.dataset, newId, OUTLINE);
    expect(again.added).toBe(0);
    expect(again.alreadyPresent).toBe(result.added);
    expect(again.doc.classes).toEqual(result.doc.classes);
  });
});

describe('what the formats keep beyond the shape', () => {
  it('COCO and Maskwright keep each object’s name, colour, visibility and the class colours', async () => {
    for (const id of ['coco', 'maskwright']) {
      const { doc, result } = await roundTrip(id);
      const original = doc.objects['img-a'];
      const back = result.doc.objects['img-a'];
      expect(back.map((o) => [o.label, o.color, o.visible])).toEqual(original.map((o) => [o.label, o.color, o.visible]));
      expect(result.doc.classes.find((c) => c.id === 3)!.color).toBe(doc.classes.find((c) => c.id === 3)!.color);
    }
  });

  it('COCO and Maskwright keep the review state and what proposed it; the others import as accepted', async () => {
    // ring: accepted text-prompt proposal; pair: still proposed (find similar); edge: rejected; the rest made by hand.
    const doc = withReviews(testSession());
    for (const format of FORMATS.filter((f) => ROUND_TRIP_FORMATS.includes(f.id))) {
      const dataset = sessionDataset(doc, { includeHidden: true, includeProposals: true });
      expect(dataset.images.flatMap((e) => e.objects.map((o) => o.object.id)), 'rejected never exported').not.toContain('edge');
      const file = await format.write(dataset, {});
      const read = await readDatasetFiles([{ name: file.name, bytes: file.bytes }]);
      const back = importAnnotations(fresh(IMAGE_A, IMAGE_B), read.dataset, newId, OUTLINE).doc;
      const reviews = back.objects['img-a'].map((o) => [reviewStateOf(o), o.review?.source]);
      if (format.id === 'coco' || format.id === 'maskwright') {
        expect(reviews, format.id).toEqual([
          ['accepted', 'text-prompt'],
          ['unreviewed', 'find-similar'],
          ['accepted', undefined],
        ]);
      } else expect(reviews.map((r) => r[0]), format.id).toEqual(['accepted', 'accepted', 'accepted']);
    }
  });

  it('leaves proposals out unless asked, rejected objects always', () => {
    const doc = withReviews(testSession());
    const ids = (includeProposals: boolean) => sessionDataset(doc, { includeHidden: true, includeProposals }).images.map((e) => e.objects.map((o) => o.object.id));
    expect(ids(false)).toEqual([['ring', 'hidden-cup'], ['blob']]);
    expect(ids(true)).toEqual([['ring', 'pair', 'hidden-cup'], ['blob']]);
    const coco = toCoco(sessionDataset(doc, { includeHidden: true }));
    expect(coco.annotations.map((a) => a.attributes?.review_state)).toEqual(['accepted', 'accepted', 'accepted']);
    expect(coco.annotations[0].attributes?.review_source).toBe('text-prompt');
    expect(coco.annotations[1].attributes).not.toHaveProperty('review_source');
  });

  it('leaves hidden objects out unless asked', () => {
    const doc = testSession();
    expect(sessionDataset(doc, { includeHidden: false }).images[0].objects.map((o) => o.object.id)).toEqual(['ring', 'pair']);
    expect(sessionDataset(doc, { includeHidden: true }).images[0].objects).toHaveLength(3);
  });
});

describe('COCO: bbox, area and vertices agree with the polygons', () => {
  const coco = toCoco(sessionDataset(testSession(), { includeHidden: true }));

  it('has one annotation per object, several polygons for the two-part one', () => {
    expect(coco.annotations).toHaveLength(5);
    const pair = coco.annotations[1].segmentation as number[][];
    expect(pair).toHaveLength(2); // the specks are not parts
  });

  it('no vertex outside the image; bbox = the polygons’ box', () => {
    for (const a of coco.annotations) {
      const image = coco.images.find((i) => i.id === a.image_id)!;
      const flat = (a.segmentation as number[][]).flat();
      const xs = flat.filter((_, i) => i % 2 === 0);
      const ys = flat.filter((_, i) => i % 2 === 1);
      expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
      expect(Math.min(...ys)).toBeGreaterThanOrEqual(0);
      expect(Math.max(...xs)).toBeLessThanOrEqual(image.width);
      expect(Math.max(...ys)).toBeLessThanOrEqual(image.height);
      const [x, y, w, h] = a.bbox;
      expect(x).toBeCloseTo(Math.min(...xs), 5);
      expect(y).toBeCloseTo(Math.min(...ys), 5);
      expect(x + w).toBeCloseTo(Math.max(...xs), 5);
      expect(y + h).toBeCloseTo(Math.max(...ys), 5);
    }
    expect(coco.annotations[3].bbox[1]).toBe(0); // the dragged vertex, clipped at the top edge
  });

  it('area = the filled polygons; the mask lost its specks with the outline', () => {
    const doc = testSession();
    const pair = doc.objects['img-a'].find((o) => o.id === 'pair')!;
    const entry = sessionDataset(doc, { includeHidden: true }).images[0].objects[1];
    expect(entry.geometry.area).toBe(coco.annotations[1].area);
    expect(entry.geometry.mask.data[58 * 96 + 50]).toBe(0); // a speck of the painted mask
    expect(pair.mask!.data[58 * 96 + 50]).toBe(1);
  });
});

describe('YOLO: one line per instance, stable class ids', () => {
  it('writes exactly one line per object, index = data.yaml index of its class', async () => {
    const dataset = sessionDataset(testSession(), { includeHidden: true });
    const files = await readZip(yoloZip(dataset, false));
    const text = (name: string) => new TextDecoder().decode(files.find((f) => f.name === name)!.data);
    const linesA = text('labels/a.txt').trim().split('\n');
    expect(linesA).toHaveLength(3);
    expect(linesA.map((l) => Number(l.split(' ')[0]))).toEqual([0, 2, 3]);
    expect(text('data.yaml')).toMatch(/nc: 5\nnames:\n {2}0: "person"\n {2}1: "unused_2"\n {2}2: "frisbee"\n {2}3: "cup"\n {2}4: "unlabelled"/);
  });

  it('keeps ids through import into a session with fewer photos and export again', async () => {
    const dataset = sessionDataset(testSession(), { includeHidden: true });
    const read = await readDatasetFiles([{ name: 'x.yolo.zip', bytes: yoloZip(dataset, false) }]);
    // Only image b is open: its objects are person and unlabelled, yet every class keeps its id.
    const result = importAnnotations(fresh(IMAGE_B), read.dataset, newId, OUTLINE);
    const again = sessionDataset(result.doc, { includeHidden: true });
    const files = await readZip(yoloZip(again, false));
    const yaml = new TextDecoder().decode(files.find((f) => f.name === 'data.yaml')!.data);
    expect(yaml).toContain('0: "person"');
    expect(yaml).toContain('2: "frisbee"');
    expect(yaml).toContain('3: "cup"');
    expect(yaml).toContain('4: "unlabelled"');
  });
});

describe('import onto a session with other classes', () => {
  it('maps by name and says what it did', () => {
    const coco = toCoco(sessionDataset(testSession(), { includeHidden: true }));
    let doc = fresh(IMAGE_A, IMAGE_B);
    doc = { ...doc, classes: [{ id: 1, name: 'Cup', color: '#123456' }, { id: 3, name: 'dog', color: '#654321' }] };
    const result = importAnnotations(doc, readCoco(coco), newId, OUTLINE);
    const byName = Object.fromEntries(result.doc.classes.map((c) => [c.name.toLowerCase(), c.id]));
    expect(byName).toEqual({ cup: 1, dog: 3, person: 4, frisbee: 5 });
    expect(result.classNotes).toContain('"cup" (id 4 in the file) is this session\'s class 1');
    expect(result.classNotes).toContain('"person" (id 1 in the file) became class 4: id 1 is taken here');
    expect(result.doc.objects['img-a'].find((o) => o.label === 'object 3')?.classId).toBe(1); // the cup
  });

  it('lists what did not match an open image instead of dropping it silently', () => {
    const coco = toCoco(sessionDataset(testSession(), { includeHidden: true }));
    const result = importAnnotations(fresh(IMAGE_A), readCoco(coco), newId, OUTLINE);
    expect(result.added).toBe(3);
    expect(result.unmatched).toEqual(['b.jpg: no open image of that name (2 annotations)']);
  });
});

describe('a YOLO zip that carries its photos', () => {
  it('hands the photos to the studio to open (annotations and images from one file)', async () => {
    const dataset = sessionDataset(testSession(), { includeHidden: true });
    const withBytes = { ...dataset, images: dataset.images.map((e) => ({ ...e, bytes: new Uint8Array([1, 2, 3]) })) };
    const read = await readDatasetFiles([{ name: 'session.yolo.zip', bytes: yoloZip(withBytes, true) }]);
    expect(read.images.map((f) => f.name)).toEqual(['images/a.png', 'images/b.jpg']);
    expect(read.dataset.annotations).toHaveLength(5);
  });
});
