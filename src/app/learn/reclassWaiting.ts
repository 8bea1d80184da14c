import type { Annotation } from '../../annotations/annotation';
import { isProposal } from '../../annotations/review';
import type { StudioDocument } from '../state/model';

/**
 * A waiting proposal's class and confidence as the learned model now sees them. Applied to every
 * snapshot of the history (a settle), it changes an object only where it still waits for review: a
 * proposal someone decided, in the present or in a step undo or redo returns to, keeps its class.
 */
export function reclassWaiting(doc: StudioDocument, imageId: string, objectId: string, change: Pick<Annotation, 'classId' | 'label' | 'confidence'>): StudioDocument {
  const objects = doc.objects[imageId];
  const target = objects?.find((o) => o.id === objectId);
  if (!objects || !target || !isProposal(target)) return doc;
  if (target.classId === change.classId && target.label === change.label && target.confidence === change.confidence) return doc;
  return { ...doc, objects: { ...doc.objects, [imageId]: objects.map((o) => (o === target ? { ...o, ...change } : o)) } };
}
