import type { ClassDef } from '../../annotations/annotation';

/**
 * Type-ahead over the class list (the review queue's class picker): which classes a typed name
 * calls up, best first, and whether it names a class that does not exist yet.
 */

export interface ClassMatches {
  readonly classes: readonly ClassDef[];
  /** The typed name, trimmed, when no class has it (any case): the picker offers to create it. */
  readonly newName: string | null;
}

const normalised = (text: string) => text.trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * How well `name` answers `typed`, lower is better: the whole name, then a prefix of the name, then
 * a prefix of a later word ("glass" → "wine glass"), then anywhere inside it; undefined: no match.
 */
function matchRank(name: string, typed: string): number | undefined {
  if (name === typed) return 0;
  if (name.startsWith(typed)) return 1;
  if (name.split(/[\s_\-/]+/).some((word) => word.startsWith(typed))) return 2;
  return name.includes(typed) ? 3 : undefined;
}

/** The classes `typed` matches, best match first and in list order within a rank; every class when nothing is typed. */
export function matchClasses(classes: readonly ClassDef[], typed: string): ClassMatches {
  const wanted = normalised(typed);
  if (!wanted) return { classes, newName: null };
  const ranked = classes
    .map((c, index) => ({ c, index, rank: matchRank(normalised(c.name), wanted) }))
    .filter((r): r is { c: ClassDef; index: number; rank: number } => r.rank !== undefined)
    .sort((a, b) => a.rank - b.rank || a.index - b.index);
  const exists = ranked.length > 0 && ranked[0].rank === 0;
  return { classes: ranked.map((r) => r.c), newName: exists ? null : typed.trim().replace(/\s+/g, ' ') };
}
