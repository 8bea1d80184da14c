import { isTag, type Annotation, type ClassDef } from '../../annotations/annotation';
import type { StudioDocument } from './model';

/**
 * Image tags: a class given to a whole image (classification datasets). A tag is an ordinary
 * annotation of kind `tag` on its image, one per class, so sync, merge, undo and the wire carry it
 * with nothing new.
 */

/** The image's tags (made by hand or accepted), in the order they were set. */
export function tagsOf(doc: Pick<StudioDocument, 'objects'>, imageId: string): Annotation[] {
  return (doc.objects[imageId] ?? []).filter((o) => isTag(o) && o.review?.state !== 'rejected');
}

/** The classes an image is tagged with, in the class list's order; tags of deleted classes are left out. */
export function tagClassesOf(doc: Pick<StudioDocument, 'objects' | 'classes'>, imageId: string): ClassDef[] {
  const tagged = new Set(tagsOf(doc, imageId).map((t) => t.classId));
  return doc.classes.filter((c) => tagged.has(c.id));
}

/** A new tag annotation of `classDef`. */
export function tagAnnotation(id: string, classDef: ClassDef): Annotation {
  return { id, kind: 'tag', label: classDef.name, classId: classDef.id, confidence: 1, color: classDef.color, visible: true, source: 'local', polygons: [] };
}

/** Sets the tag of `classId` on the image, or takes it off when it is there already. */
export function toggleTag(doc: StudioDocument, imageId: string, classId: number, newId: () => string): StudioDocument {
  const classDef = doc.classes.find((c) => c.id === classId);
  if (!classDef || !doc.images.some((i) => i.id === imageId)) return doc;
  const objects = doc.objects[imageId] ?? [];
  const present = objects.some((o) => isTag(o) && o.classId === classId && o.review?.state !== 'rejected');
  const next = present ? objects.filter((o) => !(isTag(o) && o.classId === classId)) : [...objects, tagAnnotation(newId(), classDef)];
  return { ...doc, objects: { ...doc.objects, [imageId]: next } };
}
