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

/** Every proposal of the session whose confidence is at least `threshold`. */
export function proposalsAtLeast(doc: Pick<StudioDocument, 'images' | 'objects'>, threshold: number): QueueItem[] {
  return reviewQueue(doc).filter((item) => (objectOf(doc, item)?.confidence ?? 0) >= threshold);
}

/** Accepts every proposal of the session at or above `threshold`, in one change. */
export function acceptAllAtLeast(doc: StudioDocument, threshold: number): StudioDocument {
  let next = doc;
  const byImage = new Map<string, string[]>();
  for (const item of proposalsAtLeast(doc, threshold)) byImage.set(item.imageId, [...(byImage.get(item.imageId) ?? []), item.objectId]);
  for (const [imageId, ids] of byImage) next = setReviewState(next, imageId, ids, 'accepted');
  return next;
}

/** One proposal in the review queue. */
export interface QueueItem {
  readonly imageId: string;
  readonly objectId: string;
}

export function objectOf(doc: Pick<StudioDocument, 'objects'>, item: QueueItem): Annotation | undefined {
  return doc.objects[item.imageId]?.find((o) => o.id === item.objectId);
}

/** Every object of the session in order: images as listed, each image's objects as listed. */
function allObjects(doc: Pick<StudioDocument, 'images' | 'objects'>): Array<QueueItem & { readonly object: Annotation }> {
  return doc.images.flatMap((image) => (doc.objects[image.id] ?? []).map((object) => ({ imageId: image.id, objectId: object.id, object })));
}

/** The proposals still to review, in session order. */
export function reviewQueue(doc: Pick<StudioDocument, 'images' | 'objects'>): QueueItem[] {
  return allObjects(doc)
    .filter((e) => isProposal(e.object))
    .map(({ imageId, objectId }) => ({ imageId, objectId }));
}

/**
 * The proposal after (1) or before (−1) `from` in session order, going round at the ends. `from`
 * may have been reviewed meanwhile (accepted or rejected objects keep their place), so "next" after
 * accepting is the proposal that followed it. Without `from` (or when it is gone), the queue starts at
 * the active image. Null when nothing is left to review.
 */
export function stepQueue(doc: Pick<StudioDocument, 'images' | 'objects' | 'activeImageId'>, from: QueueItem | null, direction: 1 | -1): QueueItem | null {
  const all = allObjects(doc);
  const n = all.length;
  let start = from ? all.findIndex((e) => e.imageId === from.imageId && e.objectId === from.objectId) : -1;
  if (start < 0) {
    // Just before the first object of the active image (or of the next image that has any), so a
    // step forward lands on the active image's first proposal.
    const active = Math.max(0, doc.images.findIndex((i) => i.id === doc.activeImageId));
    const imageIndex = new Map(doc.images.map((image, i) => [image.id, i]));
    const first = all.findIndex((e) => imageIndex.get(e.imageId)! >= active);
    start = (first < 0 ? 0 : first) - (direction === 1 ? 1 : 0);
  }
  if (n === 0) return null;
  for (let k = 1; k <= n; k++) {
    const entry = all[(((start + direction * k) % n) + n) % n];
    if (isProposal(entry.object)) return { imageId: entry.imageId, objectId: entry.objectId };
  }
  return null;
}
