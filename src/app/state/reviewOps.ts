import type { ReviewState } from '../../annotations/annotation';
import { isProposal, reviewStateOf } from '../../annotations/review';
import type { Annotation } from '../../annotations/annotation';
import type { StudioDocument } from './model';

/**
 * Review of what a machine proposed: pure document changes and the queue the Review panel walks.
 * An object without `review` is accepted (made by hand); proposals and rejected objects stay in the
 * document with their state, so each change is one undo step like any other.
 */

export interface ReviewCounts {
  readonly accepted: number;
  readonly unreviewed: number;
  readonly rejected: number;
}

export function reviewCounts(objects: readonly Pick<Annotation, 'review'>[]): ReviewCounts {
  const counts = { accepted: 0, unreviewed: 0, rejected: 0 };
  for (const o of objects) counts[reviewStateOf(o)]++;
  return counts;
}

/** ["12 objects", "5 to review"]: accepted objects, then proposals when there are any; rejected ones are not counted. */
export function countsParts(counts: ReviewCounts): string[] {
  const objects = `${counts.accepted} object${counts.accepted === 1 ? '' : 's'}`;
  return counts.unreviewed ? [objects, `${counts.unreviewed} to review`] : [objects];
}

/** "12 objects · 5 to review". */
export function countsLine(counts: ReviewCounts): string {
  return countsParts(counts).join(' · ');
}

/** The objects of `objectIds` on the image take `state` (their source is kept). Unchanged: the same document. */
export function setReviewState(doc: StudioDocument, imageId: string, objectIds: readonly string[], state: ReviewState): StudioDocument {
  const objects = doc.objects[imageId];
  if (!objects?.some((o) => objectIds.includes(o.id) && reviewStateOf(o) !== state)) return doc;
  const next = objects.map((o) => (objectIds.includes(o.id) && reviewStateOf(o) !== state ? { ...o, review: { ...o.review, state } } : o));
  return { ...doc, objects: { ...doc.objects, [imageId]: next } };
}

/** Every proposal of the queue (as `view` filters it) whose confidence is at least `threshold`. */
export function proposalsAtLeast(doc: Pick<StudioDocument, 'images' | 'objects'>, threshold: number, view: QueueView = WHOLE_QUEUE): QueueItem[] {
  return reviewQueue(doc, view).filter((item) => (objectOf(doc, item)?.confidence ?? 0) >= threshold);
}

/** Accepts every proposal of the queue (as `view` filters it) at or above `threshold`, in one change. */
export function acceptAllAtLeast(doc: StudioDocument, threshold: number, view: QueueView = WHOLE_QUEUE): StudioDocument {
  let next = doc;
  const byImage = new Map<string, string[]>();
  for (const item of proposalsAtLeast(doc, threshold, view)) byImage.set(item.imageId, [...(byImage.get(item.imageId) ?? []), item.objectId]);
  for (const [imageId, ids] of byImage) next = setReviewState(next, imageId, ids, 'accepted');
  return next;
}

/** One proposal in the review queue. */
export interface QueueItem {
  readonly imageId: string;
  readonly objectId: string;
}

/** A queue item as one string (`imageId/objectId`), for maps and sets. */
export const itemKey = (item: QueueItem) => `${item.imageId}/${item.objectId}`;

export function objectOf(doc: Pick<StudioDocument, 'objects'>, item: QueueItem): Annotation | undefined {
  return doc.objects[item.imageId]?.find((o) => o.id === item.objectId);
}

/** Which classes the queue holds: all, those without a class, or one class (ClassDef.id). */
export type ClassFilter = 'all' | 'unlabelled' | number;

/**
 * The order the queue walks: as the images and their objects are listed, or "teaches the most":
 * the least certain first (confidence nearest the decision boundary), since deciding those moves
 * the learned model most.
 */
export type QueueOrder = 'image' | 'uncertain';

/** How the Review panel filters and orders the proposals waiting. */
export interface QueueView {
  readonly classFilter: ClassFilter;
  /** Confidence range (0–1, both ends included). */
  readonly minConfidence: number;
  readonly maxConfidence: number;
  readonly order: QueueOrder;
}

export const WHOLE_QUEUE: QueueView = { classFilter: 'all', minConfidence: 0, maxConfidence: 1, order: 'image' };

/** A calibrated probability of ½ is where the model is least sure whether the class is right. */
const DECISION_BOUNDARY = 0.5;

export function inView(object: Pick<Annotation, 'classId' | 'confidence'>, view: QueueView): boolean {
  const { classFilter } = view;
  const classOk = classFilter === 'all' || (classFilter === 'unlabelled' ? object.classId == null : object.classId === classFilter);
  return classOk && object.confidence >= view.minConfidence && object.confidence <= view.maxConfidence;
}

type Entry = QueueItem & { readonly object: Annotation; readonly place: number };

/** Every object of the session in order: images as listed, each image's objects as listed. */
function allObjects(doc: Pick<StudioDocument, 'images' | 'objects'>): Entry[] {
  return doc.images
    .flatMap((image) => (doc.objects[image.id] ?? []).map((object) => ({ imageId: image.id, objectId: object.id, object })))
    .map((e, place) => ({ ...e, place }));
}

/** Negative when `a` comes before `b` in the view's order; session order breaks ties. */
function compareIn(view: QueueView, a: Entry, b: Entry): number {
  if (view.order === 'uncertain') {
    const gap = Math.abs(a.object.confidence - DECISION_BOUNDARY) - Math.abs(b.object.confidence - DECISION_BOUNDARY);
    if (gap !== 0) return gap;
  }
  return a.place - b.place;
}

function orderedQueue(all: readonly Entry[], view: QueueView): Entry[] {
  return all.filter((e) => isProposal(e.object) && inView(e.object, view)).sort((a, b) => compareIn(view, a, b));
}

const toItem = ({ imageId, objectId }: QueueItem): QueueItem => ({ imageId, objectId });

/** The proposals still to review that `view` lets through, in its order (by default: all, in session order). */
export function reviewQueue(doc: Pick<StudioDocument, 'images' | 'objects'>, view: QueueView = WHOLE_QUEUE): QueueItem[] {
  return orderedQueue(allObjects(doc), view).map(toItem);
}

/**
 * The proposal after (1) or before (−1) `from` in the view's queue, going round at the ends. `from`
 * may have been reviewed or filtered out meanwhile: it keeps its place in the order, so "next" after
 * accepting is the proposal that followed it. Without `from` (or when it is gone), the queue starts
 * at the active image in session order, at its head when ordered by what teaches the most. Null when
 * nothing is left to review.
 */
export function stepQueue(doc: Pick<StudioDocument, 'images' | 'objects' | 'activeImageId'>, from: QueueItem | null, direction: 1 | -1, view: QueueView = WHOLE_QUEUE): QueueItem | null {
  const all = allObjects(doc);
  const queue = orderedQueue(all, view);
  if (queue.length === 0) return null;
  const at = from ? all.find((e) => e.imageId === from.imageId && e.objectId === from.objectId) : undefined;
  const wrap = (i: number) => queue[((i % queue.length) + queue.length) % queue.length];
  if (at) {
    const index = queue.indexOf(at);
    if (index >= 0) return toItem(wrap(index + direction));
    // Not waiting any more: step from the place it would have in the order.
    const after = queue.findIndex((e) => compareIn(view, e, at) > 0);
    return toItem(wrap(direction === 1 ? (after < 0 ? 0 : after) : (after < 0 ? queue.length : after) - 1));
  }
  if (view.order === 'uncertain') return toItem(direction === 1 ? queue[0] : queue[queue.length - 1]);
  // The active image's first proposal (or the next image's that has any).
  const active = Math.max(0, doc.images.findIndex((i) => i.id === doc.activeImageId));
  const imageIndex = new Map(doc.images.map((image, i) => [image.id, i]));
  const first = queue.findIndex((e) => imageIndex.get(e.imageId)! >= active);
  return toItem(direction === 1 ? wrap(first < 0 ? 0 : first) : wrap((first < 0 ? 0 : first) - 1));
}
