import { detectorsAnswering } from '../../engine/catalog';
import { KNOWN_CONCEPTS } from '../../engine/text/promptParser';

/**
 * The local detectors' vocabulary as the studio lists it: each concept (COCO's 80 classes, face) with a few other
 * words it understands, alphabetically (people scan for a word, not for the detector's order).
 */
export interface ConceptEntry {
  readonly name: string;
  readonly examples: readonly string[];
  /** Where the concept comes from: the detectors that find it. */
  readonly sources?: readonly string[];
}

export function conceptEntries(maxExamples = 3): ConceptEntry[] {
  return KNOWN_CONCEPTS.classes
    .map((name) => ({ name, examples: KNOWN_CONCEPTS.synonyms[name].filter((w) => w !== name).slice(0, maxExamples), sources: detectorsAnswering(name) }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** General words that stand for several classes ("animal" → bird, cat, dog, …). */
export function generalWordEntries(): ConceptEntry[] {
  return Object.entries(KNOWN_CONCEPTS.generalWords)
    .map(([name, classes]) => ({ name, examples: [...classes] }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

export const CONCEPT_MODIFIERS = { colours: KNOWN_CONCEPTS.colours, positions: KNOWN_CONCEPTS.positions };
