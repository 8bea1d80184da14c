/**
 * Who changed each object: an object that is new, or whose content differs from the stored one of
 * the same id, is stamped with the writer and the time; an unchanged one keeps its stamp, so a
 * reviewer accepting one object does not claim authorship of the others.
 */
import type { AnnotationObject } from '../../../contract/projects';

function content({ changedBy: _by, changedAt: _at, ...rest }: AnnotationObject): string {
  return JSON.stringify(rest);
}

export function stampChanges(stored: readonly AnnotationObject[], incoming: readonly AnnotationObject[], writer: string, at: string): AnnotationObject[] {
  const before = new Map(stored.map((o) => [o.id, o]));
  return incoming.map((object) => {
    const previous = before.get(object.id);
    if (previous && content(previous) === content(object)) return { ...object, changedBy: previous.changedBy, changedAt: previous.changedAt };
    return { ...object, changedBy: writer, changedAt: at };
  });
}
