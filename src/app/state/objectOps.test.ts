import { describe, expect, it } from 'vitest';
import { DEFAULT_SEGMENTATION_OPTIONS } from '../../engine/options';
import { emptyMask, maskArea, paintStroke } from '../geometry/maskPaint';
import { addClass } from './classOps';
import { acceptCandidate, addImage, addPoint, applyCandidates } from './documentOps';
import { emptyDocument, type StudioDocument } from './model';
import { addPaintedObject, beginRefine, deleteObjects, duplicateObject, mergeObjects, replaceObjectMask, setObjectPolygons, splitObject } from './objectOps';

const image = { id: 'img', name: 'a.png', width: 40, height: 30 };
const blob = (x: number, y: number, r = 4) => paintStroke(emptyMask(40, 30), [[x, y]], r, 1);

const OUTLINE = { tolerance: DEFAULT_SEGMENTATION_OPTIONS.tolerance };

function withObjectAt(mask: ReturnType<typeof blob>, tolerance = OUTLINE.tolerance): StudioDocument {
  return addPaintedObject(addClass(addImage(emptyDocument(), image), 'cat'), 'img', 'o1', mask, { tolerance });
}

function withObject(mask = blob(10, 10)): StudioDocument {
  return withObjectAt(mask);
}

describe('object edits', () => {
  it('a painted object takes the current class; polygons follow the mask', () => {
    const doc = withObject();
    const [o] = doc.objects.img;
    expect(o.classId).toBe(1);
    expect(o.polygons).toHaveLength(1);
  });

  it('brush in a second part: the polygons keep both parts; erase everything removes the object', () => {
    const doc = withObject();
    const grown = replaceObjectMask(doc, 'img', 'o1', paintStroke(doc.objects.img[0].mask!, [[30, 20]], 3, 1), OUTLINE);
    expect(grown.objects.img[0].polygons).toHaveLength(2);
    expect(replaceObjectMask(doc, 'img', 'o1', emptyMask(40, 30), OUTLINE).objects.img).toHaveLength(0);
  });

  it('erasing a hole keeps it as a hole of the polygon', () => {
    const doc = withObject(blob(20, 15, 10));
    const holed = replaceObjectMask(doc, 'img', 'o1', paintStroke(doc.objects.img[0].mask!, [[20, 15]], 2, 0), OUTLINE);
    expect(holed.objects.img[0].polygons[0].holes).toHaveLength(1);
  });

  it('a painted mask is outlined once, at the tolerance it is given', () => {
    // Large enough that the error control (IoU ≥ 0.99 per part) leaves room to simplify.
    const disc = paintStroke(emptyMask(400, 300), [[200, 150]], 120, 1);
    const outlined = (tolerance: number) => withObjectAt(disc, tolerance).objects.img[0];
    expect(outlined(3).polygons[0].outer.length).toBeLessThan(outlined(0).polygons[0].outer.length);
    expect(outlined(3).outlineTolerance).toBe(3);
  });

  it('vertex edits drop the mask (the polygon is the truth)', () => {
    const doc = withObject();
    const polygons = [{ outer: [[1, 1], [9, 1], [9, 9]] as [number, number][], holes: [] }];
    const edited = setObjectPolygons(doc, 'img', 'o1', polygons);
    expect(edited.objects.img[0].mask).toBeUndefined();
    expect(edited.objects.img[0].polygons).toBe(polygons);
  });

  it('duplicate, merge, split, delete', () => {
    let doc = withObject();
    doc = addPaintedObject(doc, 'img', 'o2', blob(30, 20), OUTLINE);
    doc = duplicateObject(doc, 'img', 'o1', 'copy');
    expect(doc.objects.img.map((o) => o.id)).toEqual(['o1', 'copy', 'o2']);
    doc = deleteObjects(doc, 'img', ['copy']);
    const merged = mergeObjects(doc, 'img', ['o1', 'o2'], OUTLINE);
    expect(merged.objects.img.map((o) => o.id)).toEqual(['o1']);
    expect(merged.objects.img[0].polygons).toHaveLength(2);
    expect(maskArea(merged.objects.img[0].mask!)).toBe(maskArea(blob(10, 10)) + maskArea(blob(30, 20)));
    let n = 0;
    const split = splitObject(merged, 'img', 'o1', () => `part-${++n}`);
    expect(split.objects.img.map((o) => o.id)).toEqual(['o1', 'part-1']);
    expect(split.objects.img.every((o) => o.polygons.length === 1 && o.classId === 1)).toBe(true);
  });

  it('refining starts from the object prompt and logits, and accepting replaces the object', () => {
    let doc = addImage(emptyDocument(), image);
    doc = addPoint(doc, 'img', { x: 10, y: 10 }, 1);
    const logits = new Float32Array(4).fill(2);
    doc = applyCandidates(doc, 'img', 1, [{ polygons: [], score: 0.9, area: 10, mask: blob(10, 10), lowResLogits: logits }]);
    doc = acceptCandidate(doc, 'img', 'o1', 2);
    const [accepted] = doc.objects.img;
    expect(accepted.prompt?.points).toEqual([{ x: 10, y: 10 }]);
    expect(accepted.lowResLogits).toBe(logits);

    doc = beginRefine(doc, 'img', 'o1', 3);
    expect(doc.prompts.img.targetObjectId).toBe('o1');
    expect(doc.prompts.img.points).toEqual([{ x: 10, y: 10 }]);
    expect(doc.prompts.img.candidates[0].lowResLogits).toBe(logits);
    doc = addPoint(doc, 'img', { x: 12, y: 10, positive: false }, 4);
    doc = applyCandidates(doc, 'img', 4, [{ polygons: [], score: 0.8, area: 5, mask: blob(8, 8, 2) }]);
    doc = acceptCandidate(doc, 'img', 'new-id', 5);
    expect(doc.objects.img.map((o) => o.id)).toEqual(['o1']);
    expect(doc.objects.img[0].prompt?.points).toHaveLength(2);
    expect(doc.objects.img[0].confidence).toBe(0.8);
  });

  it('an object without a prompt is refined from its box', () => {
    const doc = beginRefine(withObject(), 'img', 'o1', 9);
    expect(doc.prompts.img.box).not.toBeNull();
  });
});
