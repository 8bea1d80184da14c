/**
 * Where the learn eval's recall at precision ≥ 70 % is lost (issue 37): the scored photos' ranked
 * guesses are cut where that recall is reached, and then
 *
 * - every instance is put in one place: found above the cut; right class but ranked below it; its
 *   proposal guessed as another class (or as nothing probable enough); its proposal guessed right but
 *   dropped before the ranking (suppressed as a same-class duplicate, or its match taken by another
 *   guess); no proposal at all (the class-agnostic ceiling);
 * - every wrong guess above the cut gets a kind: another class's object, a second copy of an object
 *   already found, a part of an object, a region reaching well past one, a partial overlap, background
 *   (a part or a region holding an object: boxes inside by the suppression's PART_INSIDE_SHARE).
 *
 * Counted per class. Bench code: it reads the replay's records, it changes nothing.
 */
import { RANK_FROM } from '../../src/engine/learn/proposeLearned';
import { insideShare, PART_INSIDE_SHARE } from '../../src/engine/learn/suppress';
import type { CachedPhoto } from './learnCache';
import { MATCH_IOU } from './learnReplay';

/** A wrong guess overlapping an instance less than this is background. */
export const TOUCH_IOU = 0.1;

export interface JudgedGuess {
  readonly proposal: number;
  readonly classId: string;
  readonly probability: number;
  /** The calibration the guess came from: the learned model's or a detector's word. */
  readonly source: string;
  readonly truePositive: boolean;
  /** The instance a true positive matched. */
  readonly instance?: number;
}

/** One scored photo as the replay saw it before learning from it. */
export interface ScoredPhotoRecord {
  readonly photo: Pick<CachedPhoto, 'instances' | 'proposals'>;
  /** The ranked guesses, judged (learnReplay's judgeGuesses). */
  readonly judged: readonly JudgedGuess[];
  /** Per proposal, its best guess before suppression and the ranking's floor (undefined: no class at all). */
  readonly bestGuess: readonly ({ classId: string; probability: number } | undefined)[];
}

export const INSTANCE_FATES = ['found', 'rankedBelowCut', 'otherClass', 'noGuess', 'suppressed', 'noProposal'] as const;
export type InstanceFate = (typeof INSTANCE_FATES)[number];
export const WRONG_KINDS = ['wrongClass', 'duplicate', 'part', 'reachesPast', 'partial', 'background'] as const;
export type WrongKind = (typeof WRONG_KINDS)[number];

export interface LossSplitRow {
  classId: string;
  instances: number;
  fates: Record<InstanceFate, number>;
  /** Wrong guesses of this class above the cut, by kind. */
  wrongAbove: Record<WrongKind, number>;
  /** Of this class's instances whose proposal got another class: which class they got, and how often. */
  confusedAs: Record<string, number>;
}

export interface LossSplit {
  /** The shown probability at the cut (undefined: no cut reaches 70 %). */
  cutProbability: number | undefined;
  guessesAboveCut: number;
  rows: LossSplitRow[];
  total: LossSplitRow;
  /** Every ranked guess: its class, shown probability, whether right, above the cut, and the kind of a wrong one. */
  guesses: { classId: string; probability: number; source: string; truePositive: boolean; above: boolean; kind?: WrongKind }[];
}

const zeros = <K extends string>(keys: readonly K[]) => Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;
const emptyRow = (classId: string): LossSplitRow => ({ classId, instances: 0, fates: zeros(INSTANCE_FATES), wrongAbove: zeros(WRONG_KINDS), confusedAs: {} });

/** The guesses above the cut of best recall at `minPrecision` (ties in probability stay in the given order, as recallAtPrecision sorts). */
export function aboveCut(judged: readonly { probability: number; truePositive: boolean }[], positives: number, minPrecision = 0.7): Set<number> {
  const order = judged.map((_, i) => i).sort((a, b) => judged[b].probability - judged[a].probability);
  let tp = 0;
  let bestRecall = 0;
  let cut = -1;
  order.forEach((i, rank) => {
    if (judged[i].truePositive) tp++;
    if (tp / (rank + 1) >= minPrecision && tp / positives > bestRecall) [bestRecall, cut] = [tp / positives, rank];
  });
  return new Set(order.slice(0, cut + 1));
}

export function lossSplit(records: readonly ScoredPhotoRecord[], classOf: (categoryId: number) => string, minPrecision = 0.7): LossSplit {
  const flat = records.flatMap((r, photo) => r.judged.map((guess) => ({ photo, guess })));
  const positives = records.reduce((s, r) => s + r.photo.instances.filter((g) => !g.crowd).length, 0);
  const above = aboveCut(flat.map((f) => f.guess), positives, minPrecision);
  const rows = new Map<string, LossSplitRow>();
  const row = (classId: string) => {
    let r = rows.get(classId);
    if (!r) rows.set(classId, (r = emptyRow(classId)));
    return r;
  };
  const isAbove = new Map(flat.map((f, i) => [f.guess, above.has(i)]));
  let cutProbability: number | undefined;
  for (const i of above) cutProbability = Math.min(cutProbability ?? Infinity, flat[i].guess.probability);

  for (const { photo, judged, bestGuess } of records) {
    const gts = photo.instances;
    gts.forEach((gt, k) => {
      if (gt.crowd) return;
      const classId = classOf(gt.categoryId);
      const r = row(classId);
      r.instances++;
      r.fates[instanceFate(photo, judged, bestGuess, k, classId, isAbove, r)]++;
    });
    for (const j of judged) if (!j.truePositive && isAbove.get(j)) row(j.classId).wrongAbove[wrongKind(photo, j, classOf)]++;
  }
  const sorted = [...rows.values()].sort((a, b) => b.instances - a.instances || a.classId.localeCompare(b.classId));
  const total = emptyRow('all');
  for (const r of sorted) {
    total.instances += r.instances;
    for (const f of INSTANCE_FATES) total.fates[f] += r.fates[f];
    for (const w of WRONG_KINDS) total.wrongAbove[w] += r.wrongAbove[w];
  }
  const guesses = flat.map(({ photo, guess }, i) => ({
    classId: guess.classId,
    probability: guess.probability,
    source: guess.source,
    truePositive: guess.truePositive,
    above: above.has(i),
    ...(guess.truePositive ? {} : { kind: wrongKind(records[photo].photo, guess, classOf) }),
  }));
  return { cutProbability, guessesAboveCut: above.size, rows: sorted, total, guesses };
}

function instanceFate(
  photo: ScoredPhotoRecord['photo'],
  judged: readonly JudgedGuess[],
  bestGuess: ScoredPhotoRecord['bestGuess'],
  k: number,
  classId: string,
  isAbove: ReadonlyMap<JudgedGuess, boolean>,
  r: LossSplitRow,
): InstanceFate {
  const match = judged.find((j) => j.truePositive && j.instance === k);
  if (match) return isAbove.get(match) ? 'found' : 'rankedBelowCut';
  const overlapping = photo.proposals.map((p, j) => ({ p, j })).filter(({ p }) => p.overlaps[k] >= MATCH_IOU);
  if (overlapping.length === 0) return 'noProposal';
  const rightGuesses = overlapping.filter(({ j }) => bestGuess[j]?.classId === classId);
  // Under the ranking's floor is ranked too low, not suppressed.
  if (rightGuesses.some(({ j }) => bestGuess[j]!.probability >= RANK_FROM)) return 'suppressed';
  if (rightGuesses.length) return 'rankedBelowCut';
  const best = overlapping.reduce((a, b) => (b.p.overlaps[k] > a.p.overlaps[k] ? b : a));
  const got = bestGuess[best.j]?.classId;
  if (got === undefined) return 'noGuess';
  r.confusedAs[got] = (r.confusedAs[got] ?? 0) + 1;
  return 'otherClass';
}

function wrongKind(photo: ScoredPhotoRecord['photo'], guess: JudgedGuess, classOf: (categoryId: number) => string): WrongKind {
  const p = photo.proposals[guess.proposal];
  let best = -1;
  photo.instances.forEach((g, k) => {
    if (!g.crowd && (best < 0 || p.overlaps[k] > p.overlaps[best])) best = k;
  });
  if (best < 0 || p.overlaps[best] < TOUCH_IOU) return 'background';
  const gt = photo.instances[best];
  if (p.overlaps[best] >= MATCH_IOU) return classOf(gt.categoryId) === guess.classId ? 'duplicate' : 'wrongClass';
  if (insideShare(p.box, gt.box) >= PART_INSIDE_SHARE) return 'part';
  if (insideShare(gt.box, p.box) >= PART_INSIDE_SHARE) return 'reachesPast';
  return 'partial';
}

/** The split as markdown: totals, then the classes with most instances. */
export function lossSplitTable(split: LossSplit, count = 20): string[] {
  const line = (r: LossSplitRow) => {
    const confused = Object.entries(r.confusedAs).sort((a, b) => b[1] - a[1]).slice(0, 3).map(([c, n]) => `${c} ${n}`).join(', ');
    return `| ${r.classId} | ${r.instances} | ${INSTANCE_FATES.map((f) => r.fates[f]).join(' | ')} | ${WRONG_KINDS.map((w) => r.wrongAbove[w]).join(' | ')} | ${confused} |`;
  };
  return [
    `where recall at P ≥ 70 % is lost: cut at shown probability ${split.cutProbability?.toFixed(3) ?? '–'}, ${split.guessesAboveCut} guesses above it`,
    `| class | instances | ${INSTANCE_FATES.join(' | ')} | ${WRONG_KINDS.map((w) => `wrong above: ${w}`).join(' | ')} | proposal guessed as |`,
    `|---|---|${INSTANCE_FATES.map(() => '---|').join('')}${WRONG_KINDS.map(() => '---|').join('')}---|`,
    line(split.total),
    ...split.rows.slice(0, count).map(line),
  ];
}
