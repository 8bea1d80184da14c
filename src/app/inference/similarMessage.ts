import type { SimilarOutcome } from './similarObjects';

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** What "Find similar" says: what it added, and what it turned down and why. */
export function similarMessage(label: string, { added, rejected, duplicates }: SimilarOutcome): string {
  const head = added === 0 ? `No similar objects found for “${label}”.` : `${plural(added, 'similar object')} added (Undo removes ${added === 1 ? 'it' : 'them'}).`;
  const notes = [
    rejected > 0 ? `${plural(rejected, 'candidate')} rejected: not like the example` : '',
    duplicates > 0 ? `${duplicates} already on the image` : '',
  ].filter(Boolean);
  return notes.length ? `${head} ${notes.join('; ')}.` : head;
}
