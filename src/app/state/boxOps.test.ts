import { describe, expect, it } from 'vitest';
import { emptyMask, paintStroke } from '../geometry/maskPaint';
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

  it('an empty mask leaves the box as it is', () => {
    const doc = withBox();
    expect(boxToMask(doc, 'img', 'b1', { mask: emptyMask(100, 80), polygons: [], outlineTolerance: 1, score: 0.5 })).toBe(doc);
  });
});
