/**
 * Property-based round trips (fast-check): random sessions — discs and rings as parts, holes, specks,
 * outlines dragged past the edge, random class sets with deleted ids, unlabelled objects — written
 * by each format and read back give the same objects (IoU ≥ 0.99 against the exported geometry), the
 * same class ids and names, and — COCO and our JSON — the same review state (proposals exported only
 * when asked, rejected objects never); COCO boxes and areas agree with the polygons.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emptyMask, maskIoU, paintStroke } from '../geometry/maskPaint';
import { objectMask } from '../geometry/objectMask';
import { addClass, deleteClass } from '../state/classOps';
import { addImage } from '../state/documentOps';
import { emptyDocument, type StudioDocument } from '../state/model';
import { addPaintedObject, setObjectPolygons } from '../state/objectOps';
import { UNLABELLED } from '../../annotations/formats/categories';
import { FORMATS } from '../../annotations/formats/registry';
import { toCoco } from '../../annotations/formats/coco';
import { importAnnotations } from './importAnnotations';
import { readDatasetFiles } from '../../annotations/formats/readFiles';
import { objectGeometry } from '../../annotations/objectGeometry';
import { sessionDataset } from '../../annotations/formats/dataset';
import { reviewStateOf } from '../../annotations/review';
import { OUTLINE } from './testSession';

const W = 72;
const H = 56;
const image = { id: 'img', name: 'random.png', width: W, height: H };

const disc = fc.record({ x: fc.integer({ min: -6, max: W + 6 }), y: fc.integer({ min: -6, max: H + 6 }), r: fc.integer({ min: 3, max: 14 }) });
const objectArb = fc.record({
  parts: fc.array(disc, { minLength: 1, maxLength: 3 }),
  hole: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
  speck: fc.boolean(),
  dragOut: fc.boolean(),
  classIndex: fc.integer({ min: -1, max: 5 }),
  review: fc.constantFrom(undefined, 'accepted' as const, 'unreviewed' as const, 'rejected' as const),
});
const sessionArb = fc.record({
  classNames: fc.uniqueArray(fc.constantFrom('person', 'frisbee', 'cup', 'dog', 'Car', 'traffic light', 'ünïcode'), { minLength: 1, maxLength: 5 }),
  deleted: fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 2 }),
  objects: fc.array(objectArb, { minLength: 1, maxLength: 4 }),
  includeProposals: fc.boolean(),
});

type RandomSession = typeof sessionArb extends fc.Arbitrary<infer T> ? T : never;

function buildSession(s: RandomSession): StudioDocument {
  let doc = addImage(emptyDocument(), image);
  for (const name of s.classNames) doc = addClass(doc, name);
  for (const i of s.deleted) if (doc.classes[i] && doc.classes.length > 1) doc = deleteClass(doc, doc.classes[i].id);
  s.objects.forEach((o, n) => {
    let mask = emptyMask(W, H);
    for (const p of o.parts) mask = paintStroke(mask, [[p.x, p.y]], p.r, 1);
    if (o.hole) mask = paintStroke(mask, [[o.parts[0].x, o.parts[0].y]], o.hole, 0);
    if (o.speck) mask = paintStroke(mask, [[(n * 17) % W + 0.5, (n * 11) % H + 0.5]], 0.6, 1);
    const classId = o.classIndex < 0 ? null : (doc.classes[o.classIndex % doc.classes.length]?.id ?? null);
    const before = doc.objects[image.id]?.length ?? 0;
    doc = addPaintedObject({ ...doc, activeClassId: classId }, image.id, `o${n}`, mask, OUTLINE);
    if (o.review && doc.objects[image.id]?.[before]) {
      const review = { state: o.review, source: 'text-prompt' as const };
      doc = { ...doc, objects: { ...doc.objects, [image.id]: doc.objects[image.id].map((x, k) => (k === before ? { ...x, review } : x)) } };
    }
    const added = doc.objects[image.id]?.[before];
    if (added?.polygons.length && o.dragOut) {
      const [first, ...rest] = added.polygons[0].outer;
      doc = setObjectPolygons(doc, image.id, added.id, [{ outer: [[first[0] - 9.3, first[1] - 11.7], ...rest], holes: added.polygons[0].holes }, ...added.polygons.slice(1)]);
    }
  });
  return doc;
}

const RUNS = { numRuns: 25, seed: 2027 };
/** CVAT and LabelMe files name classes but carry no ids: onto a fresh session their ids follow the file's order. */
const KEEPS_IDS = new Set(['coco', 'yolo', 'maskwright']);
/** The formats that hold an object's review state (COCO attributes, our JSON). */
const KEEPS_REVIEW = new Set(['coco', 'maskwright']);

describe.each(['coco', 'yolo', 'maskwright', 'cvat', 'labelme'])('%s: random sessions round-trip', (formatId) => {
  it('same objects (IoU ≥ 0.99), same class ids and names', async () => {
    const format = FORMATS.find((f) => f.id === formatId)!;
    await fc.assert(
      fc.asyncProperty(sessionArb, async (s) => {
        const doc = buildSession(s);
        const dataset = sessionDataset(doc, { includeHidden: true, includeProposals: s.includeProposals });
        // Accepted objects always, proposals only when asked, rejected ones never.
        const wanted = (doc.objects[image.id] ?? []).filter((o) => reviewStateOf(o) === 'accepted' || (s.includeProposals && reviewStateOf(o) === 'unreviewed'));
        expect(dataset.images[0].objects.map((o) => o.object.id)).toEqual(wanted.filter((o) => objectGeometry(o, W, H)).map((o) => o.id));
        const file = await format.write(dataset, {});
        const read = await readDatasetFiles([{ name: file.name, bytes: file.bytes }]);
        expect(read.dataset.problems).toEqual([]);
        const back = importAnnotations(addImage(emptyDocument(), image), read.dataset, () => 'x', OUTLINE).doc;
        const exported = dataset.images[0].objects;
        const imported = back.objects[image.id] ?? [];
        expect(imported.length).toBe(exported.length);
        exported.forEach(({ geometry, categoryId }, i) => {
          const name = dataset.categories.find((c) => c.id === categoryId)!.name;
          const backClass = back.classes.find((c) => c.id === imported[i].classId);
          expect(backClass?.name ?? UNLABELLED).toBe(name);
          if (backClass && KEEPS_IDS.has(formatId)) expect(backClass.id).toBe(categoryId);
          expect(maskIoU(geometry.mask, objectMask(imported[i], W, H))).toBeGreaterThanOrEqual(0.99);
          if (KEEPS_REVIEW.has(formatId)) expect(imported[i].review).toEqual(exported[i].object.review);
          else expect(reviewStateOf(imported[i])).toBe('accepted');
        });
      }),
      RUNS,
    );
  }, 120_000);
});

describe('COCO conformance on random sessions', () => {
  it('bbox = polygon box, area = filled polygons, every vertex in the image, one annotation per object', () => {
    fc.assert(
      fc.property(sessionArb, (s) => {
        const dataset = sessionDataset(buildSession(s), { includeHidden: true });
        const coco = toCoco(dataset);
        expect(coco.annotations).toHaveLength(dataset.images[0].objects.length);
        coco.annotations.forEach((a, i) => {
          const flat = (a.segmentation as number[][]).flat();
          const xs = flat.filter((_, k) => k % 2 === 0);
          const ys = flat.filter((_, k) => k % 2 === 1);
          expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
          expect(Math.max(...xs)).toBeLessThanOrEqual(W);
          expect(Math.min(...ys)).toBeGreaterThanOrEqual(0);
          expect(Math.max(...ys)).toBeLessThanOrEqual(H);
          expect(Math.abs(a.bbox[0] - Math.min(...xs))).toBeLessThanOrEqual(0.01);
          expect(Math.abs(a.bbox[1] - Math.min(...ys))).toBeLessThanOrEqual(0.01);
          expect(Math.abs(a.bbox[0] + a.bbox[2] - Math.max(...xs))).toBeLessThanOrEqual(0.02);
          expect(Math.abs(a.bbox[1] + a.bbox[3] - Math.max(...ys))).toBeLessThanOrEqual(0.02);
          expect(a.area).toBe(dataset.images[0].objects[i].geometry.area);
        });
      }),
      RUNS,
    );
  });
});
