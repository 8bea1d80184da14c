/**
 * Candidate rules for "Accept all"'s default (issue 37, item 3), each checked on the next photo: replays
 * the shown decisions a learn eval kept (`decisions` in its results JSON, in session order), asks each
 * rule for a threshold on the decisions before a photo, and counts what that threshold lets through on
 * the photo and how many of those were right. The product's rule is acceptAll.ts `confidentThreshold`;
 * the others are what it could be, so that a change of rule is chosen on what it delivers, not on what
 * it measured on the decisions it was picked on.
 *
 * `npx tsx bench/evalCoco/acceptAllRulesCli.ts RESULTS.json…` (the runs of one dataset, e.g. its photo orders)
 */
import { confidentThreshold, TARGET_PRECISION, tallyByThreshold, type ScoredDecision } from '../../src/engine/learn/acceptAll';

export interface SessionDecision extends ScoredDecision {
  /** The photo's place in the session. */
  readonly photo: number;
  readonly classId: string;
}

/** A rule: the threshold for each class (undefined: none for that class) from the decisions so far. */
export type AcceptAllRule = (decided: readonly SessionDecision[]) => (classId: string) => number | undefined;

/** One threshold for every class. */
const shared = (threshold: (decided: readonly ScoredDecision[]) => number | undefined): AcceptAllRule => (decided) => {
  const t = threshold(decided);
  return () => t;
};

/** A threshold per class, from that class's decisions alone. */
const perClass = (threshold: (decided: readonly ScoredDecision[]) => number | undefined): AcceptAllRule => (decided) => {
  const byClass = new Map<string, SessionDecision[]>();
  for (const d of decided) byClass.set(d.classId, [...(byClass.get(d.classId) ?? []), d]);
  const thresholds = new Map([...byClass].map(([classId, own]) => [classId, threshold(own)]));
  return (classId) => thresholds.get(classId);
};

/**
 * The lowest threshold whose measured precision is at least TARGET_PRECISION on at least `minCount`
 * decisions, tested from the most confident down and stopping at the first below: the point estimate,
 * no allowance for chance.
 */
export function measuredThreshold(decided: readonly ScoredDecision[], minCount: number): number | undefined {
  let qualified: number | undefined;
  for (const { threshold, count, right } of tallyByThreshold(decided)) {
    if (count < minCount) continue;
    if (right / count < TARGET_PRECISION) break;
    qualified = threshold;
  }
  return qualified;
}

/**
 * The lowest threshold at which the decisions at or above it were shown with a mean probability of at
 * least TARGET_PRECISION (on at least `minCount`), tested from the most confident down: what a
 * calibrated map promises there, not what was measured.
 */
export function promisedThreshold(decided: readonly ScoredDecision[], minCount: number): number | undefined {
  const sorted = [...decided].sort((a, b) => b.probability - a.probability);
  let qualified: number | undefined;
  let sum = 0;
  for (const [i, d] of sorted.entries()) {
    sum += d.probability;
    const threshold = Math.floor(d.probability * 100) / 100;
    // As tallyByThreshold: every decision at or above a threshold is counted before it is tested.
    if (i + 1 < sorted.length && sorted[i + 1].probability >= threshold) continue;
    if (i + 1 < minCount) continue;
    if (sum / (i + 1) < TARGET_PRECISION) break;
    qualified = threshold;
  }
  return qualified;
}

/** A rule on the newest half of the decisions alone: scores from a model nearer the one that will be thresholded. */
const newestHalf = (threshold: (decided: readonly ScoredDecision[]) => number | undefined) => (decided: readonly ScoredDecision[]) =>
  threshold(decided.slice(Math.floor(decided.length / 2)));

export const CANDIDATE_RULES: Readonly<Record<string, AcceptAllRule>> = {
  '≥ 95 % at 95 % confidence (the product)': shared((d) => confidentThreshold(d)),
  '≥ 95 % at 80 % confidence': shared((d) => confidentThreshold(d, TARGET_PRECISION, 0.8)),
  '≥ 95 % at 50 % confidence': shared((d) => confidentThreshold(d, TARGET_PRECISION, 0.5)),
  '≥ 95 % measured, ≥ 10 decisions': shared((d) => measuredThreshold(d, 10)),
  '≥ 95 % measured, ≥ 30 decisions': shared((d) => measuredThreshold(d, 30)),
  '≥ 95 % measured, ≥ 59 decisions': shared((d) => measuredThreshold(d, 59)),
  'per class, ≥ 95 % at 95 % confidence': perClass((d) => confidentThreshold(d)),
  'per class, ≥ 95 % at 50 % confidence': perClass((d) => confidentThreshold(d, TARGET_PRECISION, 0.5)),
  'per class, ≥ 95 % measured, ≥ 30 decisions': perClass((d) => measuredThreshold(d, 30)),
  'shown probability promises ≥ 95 %, ≥ 10 decisions': shared((d) => promisedThreshold(d, 10)),
  'shown probability promises ≥ 95 %, ≥ 30 decisions': shared((d) => promisedThreshold(d, 30)),
  'newest half, ≥ 95 % at 95 % confidence': shared(newestHalf((d) => confidentThreshold(d))),
  'newest half, ≥ 95 % at 50 % confidence': shared(newestHalf((d) => confidentThreshold(d, TARGET_PRECISION, 0.5))),
  'newest half, ≥ 95 % measured, ≥ 30 decisions': shared(newestHalf((d) => measuredThreshold(d, 30))),
};

export interface NextPhotoTally {
  letThrough: number;
  right: number;
  /** Photos (from `firstPhoto` on) on which the rule gave some class a threshold. */
  photosWithDefault: number;
  photos: number;
}

/** The rule asked before each photo from `firstPhoto` to `photos − 1`, checked on that photo's decisions. */
export function checkOnNextPhoto(rule: AcceptAllRule, decisions: readonly SessionDecision[], firstPhoto: number, photos: number): NextPhotoTally {
  const tally: NextPhotoTally = { letThrough: 0, right: 0, photosWithDefault: 0, photos: 0 };
  const before = decisions.filter((d) => d.photo < firstPhoto);
  for (let photo = firstPhoto; photo < photos; photo++) {
    const thresholdOf = rule(before);
    const onPhoto = decisions.filter((d) => d.photo === photo);
    const classes = new Set([...before, ...onPhoto].map((d) => d.classId));
    tally.photos++;
    if ([...classes].some((c) => thresholdOf(c) !== undefined)) tally.photosWithDefault++;
    for (const d of onPhoto) {
      const threshold = thresholdOf(d.classId);
      if (threshold === undefined || d.probability < threshold) continue;
      tally.letThrough++;
      if (d.correct) tally.right++;
    }
    before.push(...onPhoto);
  }
  return tally;
}
