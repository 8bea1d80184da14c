import { nextClassId } from '../annotation';
import type { ClassDef } from '../annotation';
import { UNLABELLED } from './categories';
import type { ImportedCategory } from './imported';

/**
 * How a file's classes land on the session's, by name (case-insensitive), so ids stay stable:
 * a class the session has keeps the session's id; a new class takes the file's id when that id is
 * free (a round trip keeps every id), otherwise the next free one — and every such change is said.
 * The file's "unlabelled" category is no class: its objects stay unlabelled.
 */
export interface ClassMapping {
  /** The session's class id for a file class name (lower case); null = unlabelled. */
  readonly idOf: ReadonlyMap<string, number | null>;
  readonly created: readonly ClassDef[];
  /** What was done that a user would not expect, in words. */
  readonly notes: readonly string[];
}

const key = (name: string) => name.trim().toLowerCase();

export function mapClasses(
  session: { readonly classes: readonly ClassDef[]; readonly lastClassId?: number },
  fileCategories: readonly ImportedCategory[],
  usedNames: readonly string[],
  colorFor: (id: number) => string,
): ClassMapping {
  const idOf = new Map<string, number | null>();
  const created: ClassDef[] = [];
  const notes: string[] = [];
  const sessionClasses = session.classes;
  const all = () => [...sessionClasses, ...created];
  const declared = [...fileCategories, ...usedNames.filter((n) => !fileCategories.some((c) => key(c.name) === key(n))).map((name) => ({ name }) as ImportedCategory)];
  for (const category of declared) {
    const name = category.name.trim();
    if (idOf.has(key(name))) continue;
    if (key(name) === UNLABELLED) {
      idOf.set(key(name), null);
      continue;
    }
    const existing = all().find((c) => key(c.name) === key(name));
    if (existing) {
      idOf.set(key(name), existing.id);
      if (category.id !== undefined && category.id !== existing.id) notes.push(`"${name}" (id ${category.id} in the file) is this session's class ${existing.id}`);
      continue;
    }
    // An id this session handed out before (to a class since deleted) is not free: it meant another class.
    const free = category.id !== undefined && Number.isInteger(category.id) && category.id > 0 && !all().some((c) => c.id === category.id) && category.id > (session.lastClassId ?? 0);
    const id = free ? category.id! : nextClassId(all(), session.lastClassId);
    if (category.id !== undefined && !free) notes.push(`"${name}" (id ${category.id} in the file) became class ${id}: id ${category.id} is taken here`);
    created.push({ id, name, color: category.color ?? colorFor(id) });
    idOf.set(key(name), id);
  }
  if (created.length) notes.unshift(`classes added: ${created.map((c) => `${c.name} (${c.id})`).join(', ')}`);
  return { idOf, created, notes };
}

export const classKey = key;
