/**
 * Changes other members made to a shared project, applied to the document without being undo steps
 * of this person (issue 38). The history holds snapshots; a remote change is applied to every one of
 * them (history.ts `settle`), so undoing a local step goes back to a state that already holds the
 * remote change: undo takes back only what this person did, and never rewrites someone else's work.
 */
import type { Annotation, ImageEntry } from '../../annotations/annotation';
import { toWire } from '../../annotations/wire';
import { addImage, removeImage, setObjects } from './documentOps';
import type { StudioDocument } from './model';

const content = (object: Annotation) => JSON.stringify(toWire(object));

/**
 * Returns the function that brings one snapshot of the history in line with a remote change of an
 * image's objects: the document's objects went from `before` to `after`. An object the change
 * touched (added, changed or deleted) takes its `after` form, or is gone, in every snapshot; the
 * snapshot's other objects stay as they were there, so an undone step's objects come back.
 */
export function remoteObjectsChange(imageId: string, before: readonly Annotation[], after: readonly Annotation[]): (snapshot: StudioDocument) => StudioDocument {
  const beforeById = new Map(before.map((o) => [o.id, content(o)]));
  const afterById = new Map(after.map((o) => [o.id, o]));
  const touched = new Set<string>();
  for (const id of beforeById.keys()) if (!afterById.has(id)) touched.add(id);
  for (const [id, now] of afterById) if (beforeById.get(id) !== content(now)) touched.add(id);
  return (snapshot) => {
    const objects = snapshot.objects[imageId];
    if (!objects) return snapshot;
    if (objects === before) return setObjects(snapshot, imageId, after);
    if (touched.size === 0) return snapshot;
    const kept = objects.flatMap((o) => (!touched.has(o.id) ? [o] : afterById.has(o.id) ? [afterById.get(o.id)!] : []));
    const present = new Set(objects.map((o) => o.id));
    const added = after.filter((o) => touched.has(o.id) && !present.has(o.id));
    return setObjects(snapshot, imageId, [...kept, ...added]);
  };
}

/** A photo another member added: in every snapshot, behind the one on screen. */
export const remoteImageAdded =
  (image: ImageEntry) =>
  (snapshot: StudioDocument): StudioDocument =>
    snapshot.images.some((i) => i.id === image.id) ? snapshot : addImage(snapshot, image, { show: false });

/** A photo another member removed from the project: gone from every snapshot, so no undo brings it back. */
export const remoteImageRemoved =
  (imageId: string) =>
  (snapshot: StudioDocument): StudioDocument =>
    removeImage(snapshot, imageId);
