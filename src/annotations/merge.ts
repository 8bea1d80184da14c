/**
 * Two people's edits of one image, merged per object (three-way, by object id): `base` is what both
 * started from (the revision the local edits were made on), `mine` the local objects, `theirs` what
 * the server holds now. An object only one side changed takes that side's version (a deletion is a
 * change); one both changed the same way is kept once. One both changed differently is kept twice —
 * theirs under its id, mine as a copy with a new id — and named in `conflicts`, so nothing is lost
 * and the person can choose. An object one side deleted and the other changed is kept, changed.
 * Pure: the objects are compared as the studio writes them (annotationMapping.ts), without the
 * server's who-and-when stamps.
 */
import type { AnnotationObject } from './wire';

export interface MergeResult {
  readonly objects: AnnotationObject[];
  /** Ids of the objects both sides changed differently (theirs kept under the id, mine as `<id>~mine`). */
  readonly conflicts: string[];
}

const content = ({ changedBy: _by, changedAt: _at, ...rest }: AnnotationObject) => JSON.stringify(rest);
const same = (a: AnnotationObject | undefined, b: AnnotationObject | undefined) => (a && b ? content(a) === content(b) : a === b);
const byId = (objects: readonly AnnotationObject[]) => new Map(objects.map((o) => [o.id, o]));

export function mergeObjects(base: readonly AnnotationObject[], mine: readonly AnnotationObject[], theirs: readonly AnnotationObject[]): MergeResult {
  const before = byId(base);
  const mineById = byId(mine);
  const theirsById = byId(theirs);
  const objects: AnnotationObject[] = [];
  const conflicts: string[] = [];
  // Their order first (what the others see), then what only I added, in my order.
  const ids = [...new Set([...theirs.map((o) => o.id), ...mine.map((o) => o.id), ...base.map((o) => o.id)])];
  for (const id of ids) {
    const b = before.get(id);
    const m = mineById.get(id);
    const t = theirsById.get(id);
    if (same(m, b)) {
      if (t) objects.push(t);
    } else if (same(t, b) || same(m, t)) {
      if (m) objects.push(m);
    } else if (!m || !t) {
      // Deleted on one side, changed on the other: the change is kept.
      objects.push((m ?? t)!);
    } else {
      objects.push(t, { ...m, id: `${id}~mine` });
      conflicts.push(id);
    }
  }
  return { objects, conflicts };
}
