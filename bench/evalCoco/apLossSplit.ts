/**
 * Where the learn eval's AP is lost (issue 37), from one replay's ranked guesses on the scored photos:
 * - each instance: no proposal fits it at all (the ceiling), a fitting proposal exists but no guess
 *   of its class took it, a guess took it under the shown threshold, or shown;
 * - each wrong guess, by what it is against the nearest instance of its class: a duplicate of a
 *   found one, a part of one, one with its surroundings, some other overlap, or background. Beside
 *   the count shown, how many right guesses of the session rank under it: what it costs AP.
 */
import { insideShare } from '../../src/engine/learn/suppress';
import type { CornerBox } from '../../src/engine/text/detector';

export const WRONG_KINDS = ['duplicate', 'part', 'withSurroundings', 'otherOverlap', 'background'] as const;
export type WrongKind = (typeof WRONG_KINDS)[number];

/** The share of one box inside the other from which a region counts as a part of an instance, or an instance inside a region. */
const CONTAINED = 0.7;
/** Less of its box than this inside every instance of its class: background. */
const TOUCHES = 0.1;

export interface JudgedGuessInput {
  readonly probability: number;
  readonly truePositive: boolean;
  readonly box: CornerBox;
  /** Overlap with each instance of the guess's class on the photo (the replay's match measure). */
  readonly overlaps: readonly number[];
  /** The boxes of those instances, in the same order. */
  readonly instanceBoxes: readonly CornerBox[];
}

export interface ScoredPhotoInput {
  /** Per real instance: whether any proposal overlaps it at the match threshold, whatever its class. */
  readonly fitting: readonly boolean[];
  /** Per real instance: the probability of the right guess that took it, if any. */
  readonly takenAt: readonly (number | undefined)[];
  readonly wrong: readonly JudgedGuessInput[];
}

export interface LossSplit {
  instances: number;
  noFittingProposal: number;
  fittingButNotGuessed: number;
  guessedUnderShown: number;
  shown: number;
  wrong: Record<WrongKind, { shown: number; rightRankedUnder: number }>;
}

export function splitLoss(photos: readonly ScoredPhotoInput[], showFrom: number): LossSplit {
  const rightProbabilities = photos.flatMap((p) => p.takenAt.filter((x): x is number => x !== undefined)).sort((a, b) => a - b);
  const rightUnder = (probability: number) => lowerCount(rightProbabilities, probability);
  const split: LossSplit = {
    instances: 0,
    noFittingProposal: 0,
    fittingButNotGuessed: 0,
    guessedUnderShown: 0,
    shown: 0,
    wrong: Object.fromEntries(WRONG_KINDS.map((k) => [k, { shown: 0, rightRankedUnder: 0 }])) as LossSplit['wrong'],
  };
  for (const photo of photos) {
    photo.fitting.forEach((fits, k) => {
      split.instances++;
      const at = photo.takenAt[k];
      if (at !== undefined) split[at >= showFrom ? 'shown' : 'guessedUnderShown']++;
      else split[fits ? 'fittingButNotGuessed' : 'noFittingProposal']++;
    });
    for (const guess of photo.wrong) {
      const row = split.wrong[wrongKind(guess)];
      if (guess.probability >= showFrom) row.shown++;
      row.rightRankedUnder += rightUnder(guess.probability);
    }
  }
  return split;
}

/**
 * What a wrong guess is against the instances of its class on its photo, judged on the instance its
 * box shares most with (a head has a small IoU with its raccoon, yet lies wholly inside it).
 */
export function wrongKind(guess: Pick<JudgedGuessInput, 'box' | 'overlaps' | 'instanceBoxes'>): WrongKind {
  if (guess.overlaps.some((o) => o >= 0.5)) return 'duplicate';
  const shares = guess.instanceBoxes.map((b) => insideShare(guess.box, b));
  const nearest = shares.indexOf(Math.max(0, ...shares));
  if (nearest < 0 || shares[nearest] < TOUCHES) return 'background';
  if (shares[nearest] >= CONTAINED) return 'part';
  if (insideShare(guess.instanceBoxes[nearest], guess.box) >= CONTAINED) return 'withSurroundings';
  return 'otherOverlap';
}

/** How many of the ascending `sorted` lie strictly under `value`. */
function lowerCount(sorted: readonly number[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
