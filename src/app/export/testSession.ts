/**
 * The session the format tests export (tests only): every case a dataset file must get right —
 * an object with a hole, a two-part object, a mask with specks the outline dropped, a vertex dragged
 * past the image edge, a hidden object, four classes of which one was deleted (its id stays free),
 * an unlabelled object, and a second image.
 */
import { DEFAULT_SEGMENTATION_OPTIONS } from '../../engine/options';
import { emptyMask, paintStroke } from '../geometry/maskPaint';
import { addClass, deleteClass } from '../state/classOps';
import { addImage } from '../state/documentOps';
import { emptyDocument, type StudioDocument } from '../state/model';
import { type Annotation } from '../../annotations/annotation';
import { proposedBy } from '../../annotations/review';
import { addPaintedObject, setObjectPolygons } from '../state/objectOps';
import { addBoxObject } from '../state/boxOps';

export const OUTLINE = { tolerance: DEFAULT_SEGMENTATION_OPTIONS.tolerance };
export const IMAGE_A = { id: 'img-a', name: 'a.png', width: 96, height: 64 };
export const IMAGE_B = { id: 'img-b', name: 'b.jpg', width: 80, height: 80 };

const disc = (w: number, h: number, x: number, y: number, r: number) => paintStroke(emptyMask(w, h), [[x, y]], r, 1);

export function testSession(): StudioDocument {
  let doc = addImage(addImage(emptyDocument(), IMAGE_A), IMAGE_B);
  doc = addClass(addClass(addClass(addClass(doc, 'person'), 'deleted'), 'frisbee'), 'cup');
  doc = deleteClass(doc, 2);
  const as = (classId: number | null) => (d: StudioDocument) => ({ ...d, activeClassId: classId });
  // a: a ring (person), a two-part object with specks in its mask (frisbee), a hidden cup.
  doc = as(1)(doc);
  doc = addPaintedObject(doc, 'img-a', 'ring', paintStroke(disc(96, 64, 24, 30, 16), [[24, 30]], 6, 0), OUTLINE);
  doc = as(3)(doc);
  let pair = paintStroke(disc(96, 64, 60, 16, 8), [[80, 46]], 9, 1);
  pair = paintStroke(paintStroke(pair, [[50.5, 58.5]], 0.6, 1), [[92, 4.5]], 0.6, 1); // specks of 1 and 2 px
  doc = addPaintedObject(doc, 'img-a', 'pair', pair, OUTLINE);
  doc = as(4)(doc);
  doc = addPaintedObject(doc, 'img-a', 'hidden-cup', disc(96, 64, 44, 52, 6), OUTLINE);
  doc = { ...doc, objects: { ...doc.objects, 'img-a': doc.objects['img-a'].map((o) => (o.id === 'hidden-cup' ? { ...o, visible: false } : o)) } };
  // b: a person whose vertex was dragged past the top edge, and an unlabelled blob.
  doc = as(1)(doc);
  doc = addPaintedObject(doc, 'img-b', 'edge', disc(80, 80, 40, 20, 12), OUTLINE);
  const edge = doc.objects['img-b'][0];
  const [first, ...rest] = edge.polygons[0].outer;
  doc = setObjectPolygons(doc, 'img-b', 'edge', [{ outer: [[first[0], -8.9], ...rest], holes: [] }]);
  doc = as(null)(doc);
  doc = addPaintedObject(doc, 'img-b', 'blob', disc(80, 80, 60, 60, 10), OUTLINE);
  return as(1)(doc);
}

/** The session with review states: ring an accepted text-prompt proposal, pair a find-similar proposal, edge rejected. */
export function withReviews(doc: StudioDocument): StudioDocument {
  const reviews: Record<string, Annotation['review']> = {
    ring: { state: 'accepted', source: 'text-prompt' },
    pair: proposedBy('find-similar'),
    edge: { state: 'rejected', source: 'text-prompt' },
  };
  const objects = Object.fromEntries(Object.entries(doc.objects).map(([id, list]) => [id, list.map((o) => (reviews[o.id] ? { ...o, review: reviews[o.id] } : o))]));
  return { ...doc, objects };
}

/** The format tests' session with three boxes: one first on its image, one past the image's right edge, one unlabelled. */
export function sessionWithBoxes(): StudioDocument {
  let doc = testSession();
  doc = addBoxObject({ ...doc, activeClassId: 1 }, 'img-a', 'box-person', [4, 6, 20, 30]);
  doc = addBoxObject({ ...doc, activeClassId: 4 }, 'img-a', 'box-cup-edge', [80, 40, 30, 30]);
  doc = addBoxObject({ ...doc, activeClassId: null }, 'img-b', 'box-unlabelled', [10, 50, 25, 12]);
  const b = doc.objects['img-b'];
  return { ...doc, activeClassId: 1, objects: { ...doc.objects, 'img-b': [b[b.length - 1], ...b.slice(0, -1)] } };
}
