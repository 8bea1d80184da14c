import { describe, expect, it } from 'vitest';
import { maskOutline } from '../../engine/polygons';
import type { PolygonWithHoles } from '../../engine/types';
import { emptyMask, paintStroke } from '../geometry/maskPaint';
import { acceptCandidate, addImage, addPoint, applyCandidates } from './documentOps';
import { commit, createHistory, settle, undo } from './history';
import { emptyDocument, type Candidate } from './model';
import { addPaintedObject, setObjectPolygons } from './objectOps';
import { masksOutOfDate, withOutlines } from './outlineOps';

// Large enough that the error control (IoU ≥ 0.99 per part) leaves room to simplify.
const image = { id: 'img', name: 'a.png', width: 400, height: 300 };
const disc = (x: number, y: number, r: number) => paintStroke(emptyMask(400, 300), [[x, y]], r, 1);

/** A painted object and a decoded candidate, each with its own mask, outlined at tolerance 0. */
function session() {
  const painted = disc(100, 100, 80);
  const decoded = disc(280, 180, 90);
  let doc = addPaintedObject(addImage(emptyDocument(), image), 'img', 'painted', painted, { tolerance: 0 });
  doc = addPoint(doc, 'img', { x: 280, y: 180 }, 1);
  const candidate: Candidate = { polygons: maskOutline(decoded, { tolerance: 0 }), score: 0.9, area: 0, mask: decoded, outlineTolerance: 0 };
  doc = applyCandidates(doc, 'img', 1, [candidate]);
  return { doc, painted, decoded };
}

const coarse = (...masks: ReturnType<typeof disc>[]) => new Map(masks.map((mask) => [mask, maskOutline(mask, { tolerance: 3 })]));

describe('outlines at the Detail slider tolerance', () => {
  it('are out of date where the tolerance they were traced at is not the slider’s, or unknown', () => {
    const { doc, painted, decoded } = session();
    expect(masksOutOfDate(doc, 0)).toEqual([]);
    expect(new Set(masksOutOfDate(doc, 3))).toEqual(new Set([painted, decoded]));
    // Accepting shares the candidate's mask and outline: one mask to trace, not two.
    const accepted = acceptCandidate(doc, 'img', 'accepted', 2);
    expect(accepted.objects.img.find((o) => o.id === 'accepted')!.outlineTolerance).toBe(0);
    expect(masksOutOfDate(accepted, 3)).toHaveLength(2);
    // Restored from an older session: no recorded tolerance, traced again.
    const restored = { ...doc, objects: { img: doc.objects.img.map((o) => ({ ...o, outlineTolerance: undefined })) } };
    expect(masksOutOfDate(restored, 0)).toEqual([painted]);
  });

  it('are replaced by the new tracing, with its tolerance; hand-edited vertices (no mask) stay', () => {
    const { doc, painted, decoded } = session();
    const handDrawn: PolygonWithHoles[] = [{ outer: [[1, 1], [5, 1], [5, 5]], holes: [] }];
    const withHandEdit = setObjectPolygons(addPaintedObject(doc, 'img', 'edited', disc(300, 50, 30), { tolerance: 0 }), 'img', 'edited', handDrawn);
    const outlines = coarse(painted, decoded);
    const next = withOutlines(withHandEdit, outlines, 3);
    const [paintedObject, edited] = next.objects.img;
    expect(paintedObject.polygons).toBe(outlines.get(painted));
    expect(paintedObject.outlineTolerance).toBe(3);
    expect(paintedObject.polygons[0].outer.length).toBeLessThan(withHandEdit.objects.img[0].polygons[0].outer.length);
    expect(next.prompts.img.candidates[0].polygons).toBe(outlines.get(decoded));
    expect(edited.polygons).toBe(handDrawn);
    expect(masksOutOfDate(next, 3)).toEqual([]);
  });

  it('leave the document as it is when nothing changes, so settling adds nothing', () => {
    const { doc, painted, decoded } = session();
    expect(withOutlines(doc, new Map(), 3)).toBe(doc);
    // Already at that tolerance: not replaced again.
    expect(withOutlines(doc, coarse(painted, decoded), 0)).toBe(doc);
    const history = createHistory(doc);
    expect(settle(history, (d) => withOutlines(d, new Map(), 3))).toBe(history);
  });

  it('land in every snapshot without an undo step: undo finds the shared objects re-traced', () => {
    const { doc, painted, decoded } = session();
    const accepted = commit(createHistory(doc), acceptCandidate(doc, 'img', 'accepted', 2), 'accept');
    const outlines = coarse(painted, decoded);
    const settled = settle(accepted, (d) => withOutlines(d, outlines, 3));
    expect(settled.labels).toEqual(['accept']);
    expect(settled.present.objects.img.find((o) => o.id === 'accepted')!.polygons).toBe(outlines.get(decoded));
    const before = undo(settled).present;
    expect(before.prompts.img.candidates[0].polygons).toBe(outlines.get(decoded));
    expect(masksOutOfDate(before, 3)).toEqual([]);
  });
});
