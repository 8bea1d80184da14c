import type { ClassDef, Annotation } from '../annotation';

/**
 * The categories every dataset export writes: the session's classes by id (ids stable for the
 * session, whatever their order in the list), plus "unlabelled" (id = highest class id + 1) when
 * some exported object has no class, so nothing is silently left out.
 */
export interface DatasetCategory {
  readonly id: number;
  readonly name: string;
  readonly color: string;
}

export const UNLABELLED = 'unlabelled';
export const UNLABELLED_COLOR = '#9e9e9e';

export function datasetCategories(classes: readonly ClassDef[], objects: readonly Pick<Annotation, 'classId'>[]): DatasetCategory[] {
  const known = [...classes].sort((a, b) => a.id - b.id).map((c) => ({ id: c.id, name: c.name, color: c.color }));
  const needsUnlabelled = objects.some((o) => o.classId == null || !classes.some((c) => c.id === o.classId));
  if (!needsUnlabelled) return known;
  return [...known, { id: (known[known.length - 1]?.id ?? 0) + 1, name: UNLABELLED, color: UNLABELLED_COLOR }];
}

export function categoryIdOf(categories: readonly DatasetCategory[], object: Pick<Annotation, 'classId'>): number {
  const own = categories.find((c) => c.id === object.classId && c.name !== UNLABELLED);
  return own?.id ?? categories.find((c) => c.name === UNLABELLED)!.id;
}

/**
 * The export's note for class names a format writes otherwise (characters its files cannot hold): read
 * back, such a class is a new one beside the original, so the user is told which names changed.
 */
export function renamedClassNotes(formatLabel: string, names: readonly string[], written: (name: string) => string): string[] {
  const renamed = [...new Set(names)].filter((name) => written(name) !== name).map((name) => `${JSON.stringify(name)} as ${JSON.stringify(written(name))}`);
  if (renamed.length === 0) return [];
  return [`${formatLabel} cannot hold some characters of class names: ${renamed.length} ${renamed.length === 1 ? 'class' : 'classes'} written under another name (${renamed.join(', ')})`];
}

const listedClasses = (categories: readonly DatasetCategory[]) => categories.filter((c) => c.name !== UNLABELLED);

/**
 * The export's note for a format whose files name classes without their ids: read back, a class is
 * found by name in the session, or numbered afresh in the order met (1, 2, …). Said when that
 * would change an id, naming each class with the id it has now.
 */
export function classIdsNotKeptNotes(formatLabel: string, categories: readonly DatasetCategory[]): string[] {
  const listed = listedClasses(categories);
  if (listed.every((c, i) => c.id === i + 1)) return [];
  return [`${formatLabel} cannot hold class ids: classes read back by name, and a session without them numbers them afresh (${listed.map((c) => `${JSON.stringify(c.name)} is ${c.id}`).join(', ')})`];
}

/** The export's note for a format that names a class only where an item it writes uses it: the other classes are not in the file. */
export function unusedClassNotes(formatLabel: string, categories: readonly DatasetCategory[], usedNames: readonly string[]): string[] {
  const unused = listedClasses(categories).filter((c) => !usedNames.includes(c.name));
  if (unused.length === 0) return [];
  return [`${formatLabel} names only the classes its items use: ${unused.length} ${unused.length === 1 ? 'class' : 'classes'} left out (${unused.map((c) => JSON.stringify(c.name)).join(', ')})`];
}
