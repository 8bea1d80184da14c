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

/**
 * Ids of the objects whose review this write decides: an object set to `accepted` or `rejected`
 * that was stored with another review, and a machine's proposal (`proposedBy`) written new as
 * accepted or rejected. A person's own new object is `accepted` by default and decides nothing.
 */
export function reviewsDecided(stored: readonly AnnotationObject[], incoming: readonly AnnotationObject[]): string[] {
  const before = new Map(stored.map((o) => [o.id, o]));
  return incoming
    .filter((object) => {
      if (object.review === 'unreviewed') return false;
      const previous = before.get(object.id);
      return previous ? previous.review !== object.review : object.proposedBy !== undefined;
    })
    .map((o) => o.id);
}
