import { colorForIndex, type ClassDef, type Annotation } from '../../annotations/annotation';
import { type StudioDocument } from './model';

/**
 * Pure changes of the session's class list. Ids are handed out once (max + 1, never reused while
 * the class exists) so an export written today and one written after a reorder agree.
 */

/** The next id: above every class there is and every id handed out before (`lastClassId`), so a deleted class's id is never given to another. */
export function nextClassId(classes: readonly ClassDef[], lastClassId = 0): number {
  return classes.reduce((max, c) => Math.max(max, c.id), lastClassId) + 1;
}

export function classById(doc: Pick<StudioDocument, 'classes'>, id: number | null | undefined): ClassDef | undefined {
  return id == null ? undefined : doc.classes.find((c) => c.id === id);
}

export function addClass(doc: StudioDocument, name?: string): StudioDocument {
  const id = nextClassId(doc.classes, doc.lastClassId);
  const created: ClassDef = { id, name: name?.trim() || `class ${id}`, color: colorForIndex(id - 1) };
  return { ...doc, classes: [...doc.classes, created], activeClassId: doc.activeClassId ?? id, lastClassId: id };
}

/** The class with this name (case-insensitive), created when missing; returns the document and its id. */
export function ensureClassNamed(doc: StudioDocument, name: string): { doc: StudioDocument; classId: number } {
  const wanted = name.trim().toLowerCase();
  const existing = doc.classes.find((c) => c.name.toLowerCase() === wanted);
  if (existing) return { doc, classId: existing.id };
  const next = addClass(doc, name);
  return { doc: { ...next, activeClassId: doc.activeClassId }, classId: next.classes[next.classes.length - 1].id };
}

export function updateClass(doc: StudioDocument, id: number, change: Partial<Pick<ClassDef, 'name' | 'color'>>): StudioDocument {
  const target = classById(doc, id);
  if (!target) return doc;
  const name = change.name?.trim();
  const next = { ...target, ...change, name: name || target.name };
  if (next.name === target.name && next.color === target.color) return doc;
  return { ...doc, classes: doc.classes.map((c) => (c.id === id ? next : c)) };
}

/** Moves a class by `offset` places in the list (ids unchanged). */
export function moveClass(doc: StudioDocument, id: number, offset: number): StudioDocument {
  const from = doc.classes.findIndex((c) => c.id === id);
  const to = from + offset;
  if (from < 0 || to < 0 || to >= doc.classes.length || offset === 0) return doc;
  const classes = [...doc.classes];
  const [moved] = classes.splice(from, 1);
  classes.splice(to, 0, moved);
  return { ...doc, classes };
}

/** Removes a class; its objects become unlabelled (they are not deleted). */
export function deleteClass(doc: StudioDocument, id: number): StudioDocument {
  if (!classById(doc, id)) return doc;
  const objects = Object.fromEntries(
    Object.entries(doc.objects).map(([imageId, list]) => [imageId, list.some((o) => o.classId === id) ? list.map((o) => (o.classId === id ? { ...o, classId: null } : o)) : list]),
  );
  const classes = doc.classes.filter((c) => c.id !== id);
  return { ...doc, classes, objects, activeClassId: doc.activeClassId === id ? (classes[0]?.id ?? null) : doc.activeClassId };
}

export function setActiveClass(doc: StudioDocument, id: number | null): StudioDocument {
  if (doc.activeClassId === id || (id !== null && !classById(doc, id))) return doc;
  return { ...doc, activeClassId: id };
}

/** Keys 1–9 pick the class at that place of the list. */
export function classAtKey(doc: Pick<StudioDocument, 'classes'>, digit: number): ClassDef | undefined {
  return digit >= 1 && digit <= 9 ? doc.classes[digit - 1] : undefined;
}

export function assignClass(doc: StudioDocument, imageId: string, objectIds: readonly string[], classId: number | null): StudioDocument {
  const list = doc.objects[imageId];
  if (!list || (classId !== null && !classById(doc, classId))) return doc;
  if (!list.some((o) => objectIds.includes(o.id) && (o.classId ?? null) !== classId)) return doc;
  return { ...doc, objects: { ...doc.objects, [imageId]: list.map((o) => (objectIds.includes(o.id) ? { ...o, classId } : o)) } };
}

/** The colour an object is drawn in: its class's, else its own. */
export function displayColor(doc: Pick<StudioDocument, 'classes'>, object: Pick<Annotation, 'classId' | 'color'>): string {
  return classById(doc, object.classId)?.color ?? object.color;
}
