import type { BinaryMask, PolygonWithHoles, Vertex } from '../../engine/types';
import { containsPoint } from '../../annotations/polygon';
import { emptyMask, paintStroke } from '../geometry/maskPaint';
import { objectMask } from '../geometry/objectMask';
import { deleteVertex } from '../geometry/vertexEdit';
import * as classOps from './classOps';
import { useDetail } from './detailStore';
import { useEdit } from './editStore';
import { isBox, type Annotation, type BoxGeometry } from '../../annotations/annotation';
import { boxContains } from '../geometry/boxHandles';
import * as boxOps from './boxOps';
import type { StudioDocument } from './model';
import * as objectOps from './objectOps';
import { isShown } from '../../annotations/review';
import { useReview } from './reviewStore';
import { currentDocument, newId, nextRevision, useStudio } from './studioStore';

/** Named user actions for hand editing and classes; each is one undo step through the history. */

const apply = (label: string, change: (doc: StudioDocument) => StudioDocument) => useStudio.getState().apply(label, change);
/** Preferences kept with the document but not worth an undo step (the current class). */
const settle = (change: (doc: StudioDocument) => StudioDocument) => useStudio.getState().settle(change);
/** Masks painted or merged here are outlined here, once, at the Detail slider's tolerance. */
const outline = () => ({ tolerance: useDetail.getState().tolerance });

function activeImage() {
  const doc = currentDocument();
  return doc.images.find((i) => i.id === doc.activeImageId) ?? null;
}

/** The topmost visible object under `at` (later objects are drawn over earlier ones). */
export function objectAt(objects: readonly Annotation[], at: Vertex): Annotation | undefined {
  for (let i = objects.length - 1; i >= 0; i--) {
    const o = objects[i];
    if (!o.visible || !isShown(o)) continue;
    const x = Math.floor(at[0]);
    const y = Math.floor(at[1]);
    if (isBox(o)) {
      if (boxContains(o.box, at)) return o;
      continue;
    }
    const hit = o.mask ? o.mask.data[y * o.mask.width + x] === 1 : o.polygons.some((p) => containsPoint(p, at));
    if (hit) return o;
  }
  return undefined;
}

/** The selection, keeping only objects that still exist on the active image (undo may remove them). */
export function liveSelection(doc = currentDocument()): string[] {
  const objects = doc.activeImageId ? (doc.objects[doc.activeImageId] ?? []) : [];
  return useEdit.getState().selection.filter((id) => objects.some((o) => o.id === id));
}

export const edits = {
  selectAt(at: Vertex, additive: boolean) {
    const doc = currentDocument();
    const hit = doc.activeImageId ? objectAt(doc.objects[doc.activeImageId] ?? [], at) : undefined;
    const edit = useEdit.getState();
    if (!hit) {
      if (!additive) edit.select([]);
      return;
    }
    if (additive) edit.toggle(hit.id);
    else edit.select([hit.id]);
  },

  /** One brush or eraser stroke on the selected object (a brush stroke with nothing selected makes a new object). */
  stroke(path: readonly Vertex[], erase: boolean) {
    const image = activeImage();
    if (!image || path.length === 0) return;
    const doc = currentDocument();
    const radius = useEdit.getState().brushSize / 2;
    const [selectedId] = liveSelection(doc);
    const target = selectedId ? doc.objects[image.id]?.find((o) => o.id === selectedId) : undefined;
    if (!target) {
      if (erase) return;
      const id = newId('obj');
      const mask = paintStroke(emptyMask(image.width, image.height), path, radius, 1);
      apply('paint new object', (d) => objectOps.addPaintedObject(d, image.id, id, mask, outline()));
      useEdit.getState().select([id]);
      return;
    }
    const painted: BinaryMask = paintStroke(objectMask(target, image.width, image.height), path, radius, erase ? 0 : 1);
    apply(erase ? 'erase' : 'brush', (d) => objectOps.replaceObjectMask(d, image.id, target.id, painted, outline()));
  },

  /** A box drawn with the box annotation tool: a box of the current class, selected so its handles show. */
  addBox(box: BoxGeometry) {
    const image = activeImage();
    if (!image) return;
    const id = newId('obj');
    const before = currentDocument();
    apply('draw box', (d) => boxOps.addBoxObject(d, image.id, id, box));
    if (currentDocument() !== before) useEdit.getState().select([id]);
  },

  /** A box resized by a handle. */
  setBox(objectId: string, box: BoxGeometry) {
    const image = activeImage();
    if (image) apply('resize box', (d) => boxOps.setObjectBox(d, image.id, objectId, box));
  },

  /** The box replaced by the mask SAM found in it (box → mask); undo gives the box back. */
  replaceBoxByMask(imageId: string, objectId: string, found: boxOps.FoundMask) {
    apply('box to mask', (d) => boxOps.boxToMask(d, imageId, objectId, found));
  },

  setPolygons(objectId: string, polygons: readonly PolygonWithHoles[], action: string) {
    const image = activeImage();
    if (image) apply(action, (d) => objectOps.setObjectPolygons(d, image.id, objectId, polygons));
  },

  deleteSelected() {
    const image = activeImage();
    const ids = liveSelection();
    if (!image || ids.length === 0) return false;
    apply(ids.length === 1 ? 'delete object' : `delete ${ids.length} objects`, (d) => objectOps.deleteObjects(d, image.id, ids));
    useEdit.getState().select([]);
    return true;
  },

  /** Delete: the selected vertex when there is one (a ring keeps three), else the selected objects. */
  deleteVertexOrSelection(): boolean {
    const image = activeImage();
    const { selectedVertex } = useEdit.getState();
    const [id] = liveSelection();
    const object = image && id ? currentDocument().objects[image.id]?.find((o) => o.id === id) : undefined;
    if (object && selectedVertex) {
      const { polygons } = object;
      const next = deleteVertex(polygons, selectedVertex);
      if (next !== polygons) edits.setPolygons(object.id, next, 'delete vertex');
      useEdit.getState().selectVertex(null);
      return true;
    }
    return edits.deleteSelected();
  },

  duplicateSelected() {
    const image = activeImage();
    const [id] = liveSelection();
    if (!image || !id) return false;
    const copyId = newId('obj');
    apply('duplicate object', (d) => objectOps.duplicateObject(d, image.id, id, copyId));
    useEdit.getState().select([copyId]);
    return true;
  },

  mergeSelected() {
    const image = activeImage();
    const ids = liveSelection();
    if (!image || ids.length < 2) return;
    apply(`merge ${ids.length} objects`, (d) => objectOps.mergeObjects(d, image.id, ids, outline()));
    useEdit.getState().select([ids[0]]);
  },

  splitSelected() {
    const image = activeImage();
    const [id] = liveSelection();
    if (!image || !id) return;
    apply('split object', (d) => objectOps.splitObject(d, image.id, id, () => newId('obj')));
  },

  /** Loads the selected object's prompt and logits as the current prompt, so the next click refines it. */
  beginRefine(objectId: string) {
    const image = activeImage();
    if (image) apply('refine object', (d) => objectOps.beginRefine(d, image.id, objectId, nextRevision()));
  },
};

export const classActions = {
  add: (name?: string) => apply('add class', (d) => classOps.addClass(d, name)),
  rename: (id: number, name: string) => apply('rename class', (d) => classOps.updateClass(d, id, { name })),
  recolor: (id: number, color: string) => apply('recolour class', (d) => classOps.updateClass(d, id, { color })),
  move: (id: number, offset: number) => apply('reorder classes', (d) => classOps.moveClass(d, id, offset)),
  remove: (id: number) => apply('delete class', (d) => classOps.deleteClass(d, id)),
  pick: (id: number | null) => settle((d) => classOps.setActiveClass(d, id)),
  /** Gives the selected objects (if any) this class too. */
  pickByKey(digit: number) {
    const doc = currentDocument();
    const target = classOps.classAtKey(doc, digit);
    if (!target) return false;
    classActions.pick(target.id);
    const ids = liveSelection(doc);
    if (doc.activeImageId && ids.length) classActions.assign(doc.activeImageId, ids, target.id);
    return true;
  },
  assign(imageId: string, objectIds: readonly string[], classId: number | null) {
    apply('set class', (d) => classOps.assignClass(d, imageId, objectIds, classId));
    // A proposal the person re-classed and then accepted was not right as proposed (reviewPrecision.ts).
    useReview.getState().markReclassed(objectIds.map((objectId) => ({ imageId, objectId })));
  },
};
