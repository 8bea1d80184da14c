import { describe, expect, it } from 'vitest';
import { emptyMask, maskArea, paintStroke } from '../geometry/maskPaint';
import { objectMask } from '../geometry/objectMask';
import { addPaintedObject, mergeObjects, replaceObjectMask } from './objectOps';
import { addBoxObject, boxToMask, setObjectBox } from './boxOps';
import { addImage } from './documentOps';
import { commit, createHistory, undo } from './history';
import { emptyDocument } from './model';

const IMAGE = { id: 'img', name: 'a.png', width: 100, height: 80 };
const withBox = () => addBoxObject({ ...addImage(emptyDocument(), IMAGE), activeClassId: 2 }, 'img', 'b1', [10.123, 20, 30, 40]);

describe('box annotations in the document', () => {
  it('a new box takes the active class, is a box with no polygons, kept in hundredths of a pixel', () => {
    const [box] = withBox().objects.img;
    expect(box).toMatchObject({ id: 'b1', kind: 'box', box: [10.12, 20, 30, 40], classId: 2, polygons: [], visible: true });
  });

  it('a box is clipped to its image; one with nothing inside it is not added', () => {
    const doc = addImage(emptyDocument(), IMAGE);
    expect(addBoxObject(doc, 'img', 'b', [90, 70, 30, 30]).objects.img[0].box).toEqual([90, 70, 10, 10]);
    expect(addBoxObject(doc, 'img', 'b', [120, 10, 30, 30])).toBe(doc);
  });

  it('resizing changes the box; the same box again changes nothing (no empty undo step)', () => {
    const doc = withBox();
    expect(setObjectBox(doc, 'img', 'b1', [5, 5, 50, 50]).objects.img[0].box).toEqual([5, 5, 50, 50]);
    expect(setObjectBox(doc, 'img', 'b1', [10.12, 20, 30, 40])).toBe(doc);
  });

  it('box → mask keeps the id, place, class and name; undo gives the box back', () => {
    const doc = addBoxObject(withBox(), 'img', 'b2', [50, 10, 20, 20]);
    const mask = paintStroke(emptyMask(100, 80), [[25, 40]], 10, 1);
    const polygons = [{ outer: [[15, 30], [35, 30], [35, 50], [15, 50]] as [number, number][], holes: [] }];
    const history = commit(createHistory(doc), boxToMask(doc, 'img', 'b1', { mask, polygons, outlineTolerance: 1, score: 0.93 }), 'box to mask');
    const [masked, other] = history.present.objects.img;
    expect(masked).toMatchObject({ id: 'b1', classId: 2, label: 'box 1', polygons, confidence: 0.93, prompt: { points: [], box: { x: expect.closeTo(25.12, 6), y: 40, width: 30, height: 40 } } });
    expect(masked.kind).toBeUndefined();
    expect(masked.box).toBeUndefined();
    expect(other.id).toBe('b2');
    expect(undo(history).present.objects.img[0]).toMatchObject({ kind: 'box', box: [10.12, 20, 30, 40] });
  });

  it('a box given pixels — merged with a mask, or painted on — becomes a mask of its rectangle and those pixels', () => {
    const disc = paintStroke(emptyMask(100, 80), [[80, 60]], 5, 1);
    let doc = addPaintedObject(withBox(), 'img', 'm1', disc, { tolerance: 1 });
    const merged = mergeObjects(doc, 'img', ['b1', 'm1'], { tolerance: 1 }).objects.img;
    expect(merged).toHaveLength(1);
    expect([merged[0].id, merged[0].kind, merged[0].box]).toEqual(['b1', undefined, undefined]);
    // The box's 30 × 40 pixels and the disc's, apart.
    expect(maskArea(merged[0].mask!)).toBe(maskArea(disc) + 30 * 40);
    doc = withBox();
    const painted = replaceObjectMask(doc, 'img', 'b1', paintStroke(objectMask(doc.objects.img[0], 100, 80), [[60, 40]], 4, 1), { tolerance: 1 }).objects.img[0];
    expect([painted.kind, painted.box, painted.polygons.length > 0]).toEqual([undefined, undefined, true]);
  });

  it('an empty mask leaves the box as it is', () => {
    const doc = withBox();
    expect(boxToMask(doc, 'img', 'b1', { mask: emptyMask(100, 80), polygons: [], outlineTolerance: 1, score: 0.5 })).toBe(doc);
  });
});
