/**
 * Prompt understanding: free text → the detector classes it names, plus the modifiers we can check
 * on pixels (colour, left/right/top/bottom-most, largest/smallest).
 *
 * The head noun decides. "zebra-striped spaceship" is about a spaceship (unknown) even though
 * "zebra" is a class, so it is answered with nothing rather than with zebras; "dog bed" is a bed.
 * Words after a preposition or relative clause ("cat on the sofa", "man holding a cup") describe
 * relations we cannot check: they are reported in `ignored`, and the head noun is answered.
 */
import { ALL_CONCEPTS, type Concept } from './concepts';
import { COLOUR_NAMES, type ColourName } from './colour';
import { buildVocabulary, CLASS_SYNONYMS, HYPERNYMS, type VocabularyEntry } from './vocabulary';

export type Extreme = 'leftmost' | 'rightmost' | 'topmost' | 'bottommost' | 'largest' | 'smallest';

export interface PromptInterpretation {
  readonly text: string;
  /** Empty when the prompt names nothing the local detector knows: then nothing is returned. */
  readonly classes: readonly Concept[];
  /** The words that named the classes, e.g. "puppies". */
  readonly matched?: string;
  /** Keep only instances whose pixels are mostly this colour. */
  readonly colour?: ColourName;
  /** Keep only the single instance that is extreme in this sense. */
  readonly extreme?: Extreme;
  /** Words that were not used (unverifiable adjectives, relations). */
  readonly ignored: readonly string[];
  /** Why nothing will be returned, when `classes` is empty. */
  readonly reason?: string;
}

const FILLER = new Set([
  'a', 'an', 'the', 'all', 'every', 'each', 'any', 'some', 'of', 'this', 'that', 'these', 'those', 'my', 'his', 'her',
  'their', 'our', 'its', 'please', 'segment', 'find', 'show', 'select', 'mask', 'detect', 'get', 'me', 'highlight', 'only',
  'one', 'ones', 'image', 'photo', 'picture', 'pic', 'in', 'there', 'is', 'are', 'and',
]);

/** Words opening a relation or clause we cannot check; the head noun comes before them. */
const CLAUSE_OPENERS = new Set([
  'on', 'in', 'at', 'with', 'without', 'near', 'by', 'next', 'beside', 'under', 'over', 'above', 'below', 'behind',
  'inside', 'outside', 'holding', 'wearing', 'carrying', 'riding', 'sitting', 'standing', 'lying', 'eating', 'that',
  'which', 'who', 'from', 'to', 'for', 'into', 'onto', 'around', 'between', 'against',
]);

const EXTREME_WORDS: Readonly<Record<string, Extreme>> = {
  left: 'leftmost', leftmost: 'leftmost', 'left-most': 'leftmost',
  right: 'rightmost', rightmost: 'rightmost', 'right-most': 'rightmost',
  top: 'topmost', topmost: 'topmost', upper: 'topmost', uppermost: 'topmost', highest: 'topmost',
  bottom: 'bottommost', bottommost: 'bottommost', lower: 'bottommost', lowest: 'bottommost',
  largest: 'largest', biggest: 'largest', 'large-st': 'largest',
  smallest: 'smallest', tiniest: 'smallest',
};

/** Multi-word position phrases, removed before the head noun is looked for. */
const POSITION_PHRASES: readonly [RegExp, Extreme][] = [
  [/\b(on|at|to) the (far )?left( side)?( of the (image|photo|picture))?\b/, 'leftmost'],
  [/\b(on|at|to) the (far )?right( side)?( of the (image|photo|picture))?\b/, 'rightmost'],
  [/\b(at|on) the top( of the (image|photo|picture))?\b/, 'topmost'],
  [/\b(at|on) the bottom( of the (image|photo|picture))?\b/, 'bottommost'],
];

const COLOUR_SYNONYMS: Readonly<Record<string, ColourName>> = {
  grey: 'gray', violet: 'purple', magenta: 'pink', crimson: 'red', scarlet: 'red', navy: 'blue', cyan: 'blue',
  turquoise: 'blue', teal: 'blue', golden: 'yellow', gold: 'yellow', beige: 'brown', tan: 'brown', silver: 'gray',
};

let vocabulary: Map<string, VocabularyEntry> | undefined;
const MAX_PHRASE_WORDS = 4;

export function normalizePrompt(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9\s-]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

function colourOf(word: string): ColourName | undefined {
  if ((COLOUR_NAMES as readonly string[]).includes(word)) return word as ColourName;
  return COLOUR_SYNONYMS[word];
}

export function interpretPrompt(text: string): PromptInterpretation {
  vocabulary ??= buildVocabulary();
  let normalized = normalizePrompt(text);
  let extreme: Extreme | undefined;
  for (const [pattern, which] of POSITION_PHRASES) {
    if (pattern.test(normalized)) {
      extreme = which;
      normalized = normalized.replace(pattern, ' ').replace(/\s+/g, ' ').trim();
    }
  }
  // Hyphenated compounds are read word by word ("zebra-striped" → "zebra striped"), after
  // checking the whole hyphenated form in the vocabulary ("carry-on").
  const words = normalized.split(' ').flatMap((w) => (w.includes('-') && !vocabulary!.has(w) ? w.split('-') : [w])).filter(Boolean);

  // The head noun phrase ends before the first clause opener.
  const clauseAt = words.findIndex((w, i) => i > 0 && CLAUSE_OPENERS.has(w));
  const head = clauseAt === -1 ? words : words.slice(0, clauseAt);
  const ignored = clauseAt === -1 ? [] : words.slice(clauseAt);

  const content = head.filter((w) => !FILLER.has(w));
  if (content.length === 0) return { text, classes: [], ignored, reason: 'the prompt names no object' };

  // Longest vocabulary phrase ending at the last word (the head noun); modifiers precede it.
  let match: { entry: VocabularyEntry; start: number } | undefined;
  for (let start = Math.max(0, content.length - MAX_PHRASE_WORDS); start < content.length && !match; start++) {
    const entry = vocabulary.get(content.slice(start).join(' '));
    if (entry) match = { entry, start };
  }
  if (!match) {
    return {
      text,
      classes: [],
      ignored: [...content, ...ignored],
      reason: `"${content[content.length - 1]}" is not one of the objects the local detector knows`,
    };
  }

  let colour: ColourName | undefined;
  const unused: string[] = [];
  for (const word of content.slice(0, match.start)) {
    const c = colourOf(word);
    if (c && !colour) colour = c;
    else if (EXTREME_WORDS[word] && !extreme) extreme = EXTREME_WORDS[word];
    else unused.push(word);
  }
  return {
    text,
    classes: match.entry.classes,
    matched: content.slice(match.start).join(' '),
    colour,
    extreme,
    ignored: [...unused, ...ignored],
  };
}

export interface KnownConcepts {
  /** The concepts of the local detectors (COCO's 80 classes and those beyond COCO). */
  readonly classes: readonly Concept[];
  /** Other words understood for each class. */
  readonly synonyms: Readonly<Record<Concept, readonly string[]>>;
  /** General words standing for several classes ("vehicle", "animal"). */
  readonly generalWords: Readonly<Record<string, readonly Concept[]>>;
  /** Modifiers checked on the pixels. */
  readonly colours: readonly string[];
  readonly positions: readonly string[];
}

/** What the local model knows, for the studio to explain. */
export const KNOWN_CONCEPTS: KnownConcepts = {
  classes: ALL_CONCEPTS,
  synonyms: CLASS_SYNONYMS,
  generalWords: HYPERNYMS,
  colours: [...COLOUR_NAMES, ...Object.keys(COLOUR_SYNONYMS)],
  positions: ['left', 'right', 'top', 'bottom', 'largest', 'smallest'],
};
