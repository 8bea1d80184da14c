/**
 * The learn eval's simulated session, replayed from the per-photo cache (learnCache.ts): no model
 * runs here, only the learned classes (src/engine/learn/).
 *
 * - Seed photos: the person labels every instance by hand (from the ground truth).
 * - Every later photo: each proposal gets the most probable of the learned classes, or the class a
 *   detector named when its box prompted the proposal, that class is one of the person's and the
 *   detector's word is the more probable (what the detectors know, beside what the person taught). Proposals at or
 *   above `showFrom` are shown, most probable first; the perfect reviewer accepts one that matches
 *   an unmatched instance of its class (mask IoU ≥ 0.5, box IoU for box-only ground truth),
 *   re-classes one that matches an unmatched instance of another class, rejects the rest, and adds
 *   every instance still missing by hand.
 * - A finished photo teaches: the reviewer's decisions, the hand-made objects, and the proposals
 *   not shown (a positive of the instance they match, background otherwise). Before it learns, the
 *   tool's guesses on that photo are recorded against the outcome: the decisions calibration fits on.
 *
 * Reported on the photos after the seed ones: AP50 of the proposals with their classes (mean over
 * classes, COCO's 101-point interpolation) and pooled; recall and precision of what was shown;
 * the best recall at precision ≥ 70 %; actions per instance (accept, reject, re-class 1; an object
 * made by hand 4); ECE of the shown probabilities; Node milliseconds per photo; learning-step p95;
 * and "accept all" at its default, as the studio advises it (acceptAll.ts) on the decisions before each
 * photo, checked on that photo.
 */
import { acceptAllAdvice, type AcceptAllAdvice } from '../../src/engine/learn/acceptAll';
import { expectedCalibrationError, type ReliabilityBin } from '../../src/engine/learn/calibration';
import type { DescriptorKind, RegionDescriptor } from '../../src/engine/learn/descriptors';
import { LearnedClasses, type LearnedHead } from '../../src/engine/learn/learnedClasses';
import type { RelationFeatures } from '../../src/engine/learn/overlapRanker';
import { bestGuess, INSIDE_DRAWN_BOX, RANK_FROM, rankCandidates } from '../../src/engine/learn/proposeLearned';
import type { ShownCalibrationMethod } from '../../src/engine/learn/shownCalibration';
import { suppressSameClassOverlaps } from '../../src/engine/learn/suppress';
import type { CachedInstance, CachedPhoto } from './learnCache';
import type { ScoredPhotoRecord } from './lossSplit';
import { splitLoss, type LossSplit, type ScoredPhotoInput } from './apLossSplit';

export const MATCH_IOU = 0.5;
/** A hand-made object costs as much as four review decisions (issue 37). */
export const HAND_LABEL_ACTIONS = 4;

export interface ReplayOptions {
  readonly seedImages: number;
  readonly kinds: readonly DescriptorKind[];
  readonly showFrom: number;
  /** Category id → the person's class name. */
  readonly categories: ReadonlyMap<number, string>;
  /** Off: the learned classes alone. */
  readonly detectorPrior?: boolean;
  /** Off: every classified proposal is proposed, parts and duplicates of a more probable one too. */
  readonly suppressParts?: boolean;
  /** Off: the probability shown is the classifier's, not the overlap ranker's (overlapRanker.ts) learned from earlier photos' outcomes. */
  readonly rankOverlaps?: boolean;
  /** Proposals overlapping an instance only partly (IoU in [0.1, 0.5)) teach nothing rather than background. */
  readonly skipPartialNegatives?: boolean;
  /** The classifier's L2 penalty (default LearnedClasses'). */
  readonly l2?: number;
  /** The arithmetic one learning step may spend (default LearnedClasses'). */
  readonly stepWork?: number;
  /** The map of the shown probability (default LearnedClasses'). */
  readonly shownCalibration?: ShownCalibrationMethod;
  /** The map of the displayed probability, after the shown one (default LearnedClasses'). */
  readonly displayCalibration?: ShownCalibrationMethod;
  /** How the learned model names a class (default LearnedClasses'). */
  readonly head?: LearnedHead;
  /** Told each finished photo's lessons before the model learns them (a probe of other heads taught the same: namingProbe.ts). */
  readonly onLessons?: (photo: CachedPhoto, seed: boolean, lessons: readonly { descriptor: RegionDescriptor; classId: string | null }[], model: LearnedClasses) => void;
  /** When given, each scored photo's judged guesses and per-proposal best guesses are pushed here (lossSplit.ts). */
  readonly scoredRecords?: ScoredPhotoRecord[];
  /** More proposals on each photo the tool proposes on, from what the model has learned so far (the example path: exampleProposals.ts). */
  readonly exampleProposals?: (photo: CachedPhoto, model: LearnedClasses) => Promise<readonly CachedPhoto['proposals'][number][]>;
}

export interface LearnSummary {
  ap50: number;
  ap50Pooled: number;
  /** AP50 ranked by the displayed probability instead (the same as ap50 when one map decides and displays). */
  ap50OfDisplayed: number;
  recall: number;
  precision: number;
  recallAtPrecision70: number;
  actionsPerInstance: number;
  ece: number;
  msPerImageNode: number;
  learnMsP95: number;
  learnMsMean: number;
  learnCpuMsP95: number;
  instances: number;
  shown: number;
  accepted: number;
  reclassed: number;
  rejected: number;
  handAdded: number;
  /** What the studio would advise on "accept all" after the last photo. */
  acceptAllAtEnd: AcceptAllAdvice;
  /**
   * "Accept all ≥ P" checked on the next photo: on each photo after the seed ones, the default advised
   * on the decisions before it, and what it let through there (summed over the photos): how many, how
   * many right, and on how many photos no default was offered.
   */
  acceptAllHeldOut: { precision: number | undefined; count: number; right: number; photos: number; photosWithoutDefault: number };
  /** The ECE the shown probabilities would have on this many proposals were they exactly calibrated (the mean over simulated outcomes): the figure's noise floor. */
  eceIfCalibrated: number;
  reliability: ReliabilityBin[];
}

export interface ImageRow {
  image: string;
  seed: boolean;
  instances: number;
  proposals: number;
  shown: number;
  accepted: number;
  reclassed: number;
  rejected: number;
  handAdded: number;
  actions: number;
  /** "Accept all"'s default advised before this photo (null: none offered), and what it let through here. */
  acceptAllDefault: number | null;
  acceptAllLetThrough: number;
  acceptAllRight: number;
  learnMs: number;
  /** CPU time of the learning step: on a machine shared with other work the wall time says more about the others. */
  learnCpuMs: number;
  classifyMs: number;
  toolMs: number;
}

interface Guess {
  readonly proposal: number;
  readonly classId: string;
  /** Displayed: what ECE and "accept all" are judged on. */
  probability: number;
  /** Decides whether and where it is shown (LearnedClasses.rankProposals): what AP ranks by. */
  rankingProbability: number;
  /** The overlap ranker's input, when it ranks. */
  relation?: RelationFeatures;
  readonly raw: number;
  readonly evidence?: number;
  readonly source: string;
}

/** One class over the scored photos: where its instances were lost (issue 37: no proposal, wrong class, ranked too low). */
export interface ClassRow {
  classId: string;
  instances: number;
  /** Instances some proposal overlaps at MATCH_IOU, whatever class it was given: the class-agnostic ceiling. */
  withProposal: number;
  /** Instances whose best-overlapping proposal was guessed as another class (or not guessed at all). */
  otherClass: number;
  /** Instances a guess of this class matched, at any probability: what ranking could reach. */
  guessed: number;
  shown: number;
  accepted: number;
  /** Instances nobody proposed right, made by hand. */
  handAdded: number;
  recall: number;
  precision: number;
  ap50: number;
}

/** One scored guess judged as a detection: what AP and recall at a precision are computed from. */
export interface Ranked {
  readonly classId: string;
  /** The ranking probability (LearnedClasses.rankProposals). */
  readonly probability: number;
  readonly truePositive: boolean;
  /** The probability displayed, where another map displays it (`--display-calibration`). */
  readonly displayed?: number;
}

/** One decision on a shown proposal, in session order: what calibration and "accept all" are judged on. */
export interface ShownDecisionRow {
  /** The photo's place in the session. */
  photo: number;
  classId: string;
  /** Displayed. */
  probability: number;
  /** What decided it was shown (absent in runs from before the display map: there it is `probability`). */
  rankingProbability?: number;
  correct: boolean;
  /** The overlap ranker's features it was ranked with (overlapRanker.ts relationFeatures), where it ranked. */
  relation?: RelationFeatures;
}

export async function replaySession(
  photos: readonly CachedPhoto[],
  options: ReplayOptions,
): Promise<{ learn: LearnSummary; byImage: ImageRow[]; byClass: ClassRow[]; decisions: ShownDecisionRow[]; apLossSplit: LossSplit; ranked: Ranked[] }> {
  const model = new LearnedClasses({
    kinds: options.kinds,
    ...(options.l2 === undefined ? {} : { l2: options.l2 }),
    ...(options.stepWork === undefined ? {} : { stepWork: options.stepWork }),
    ...(options.shownCalibration === undefined ? {} : { shownCalibration: options.shownCalibration }),
    ...(options.displayCalibration === undefined ? {} : { displayCalibration: options.displayCalibration }),
    ...(options.head === undefined ? {} : { head: options.head }),
  });
  const classOf = (categoryId: number) => options.categories.get(categoryId) ?? String(categoryId);
  const personClasses = new Set(options.categories.values());
  const ranked: Ranked[] = [];
  const positivesByClass = new Map<string, number>();
  const shownLog: ShownDecisionRow[] = [];
  const acceptAll = { count: 0, right: 0, photos: 0, photosWithoutDefault: 0 };
  const learnMs: number[] = [];
  const learnCpuMs: number[] = [];
  const toolMs: number[] = [];
  const byImage: ImageRow[] = [];
  const totals = { instances: 0, shown: 0, accepted: 0, reclassed: 0, rejected: 0, handAdded: 0 };
  const classRows = new Map<string, ClassRow>();
  const scoredForSplit: ScoredPhotoInput[] = [];
  const classRow = (classId: string) => {
    let r = classRows.get(classId);
    if (!r) classRows.set(classId, (r = { classId, instances: 0, withProposal: 0, otherClass: 0, guessed: 0, shown: 0, accepted: 0, handAdded: 0, recall: 0, precision: NaN, ap50: NaN }));
    return r;
  };

  for (const [index, given] of photos.entries()) {
    const seed = index < options.seedImages;
    const prompted = !seed && options.exampleProposals ? await options.exampleProposals(given, model) : [];
    const photo = prompted.length ? { ...given, proposals: [...given.proposals, ...prompted] } : given;
    const gts = photo.instances;
    const real = gts.map((g, k) => k).filter((k) => !gts[k].crowd);
    const row: ImageRow = { image: photo.file, seed, instances: real.length, proposals: photo.proposals.length, shown: 0, accepted: 0, reclassed: 0, rejected: 0, handAdded: 0, actions: 0, acceptAllDefault: null, acceptAllLetThrough: 0, acceptAllRight: 0, learnMs: 0, learnCpuMs: 0, classifyMs: 0, toolMs: 0 };

    const t0 = performance.now();
    const guesses: Guess[] = productRule(options) ? productGuesses(model, photo, [...personClasses]) : ablatedGuesses(model, photo, options, personClasses);
    row.classifyMs = performance.now() - t0;

    // The guesses judged as detections (each instance found once, by the most probable guess of its
    // class): what AP counts, and what the overlap ranker learns from once the photo is done.
    const judged = judgeGuesses(photo, guesses, real, classOf);
    if (!seed) {
      for (const j of judged) ranked.push({ classId: j.guess.classId, probability: j.guess.rankingProbability, truePositive: j.truePositive, displayed: j.guess.probability });
      for (const k of real) positivesByClass.set(classOf(gts[k].categoryId), (positivesByClass.get(classOf(gts[k].categoryId)) ?? 0) + 1);
      countByClass(photo, guesses, judged, real, classOf, classRow);
      options.scoredRecords?.push({ photo, judged: judged.map((j) => ({ ...j.guess, truePositive: j.truePositive, instance: j.instance })), bestGuess: photo.proposals.map((p) => bestGuess(model, p, p.descriptor, [...personClasses])) });
      scoredForSplit.push(lossSplitInput(photo, judged, real, classOf));
    }

    // The review: shown guesses, most probable first; then what is still missing, by hand.
    const examples: { descriptor: RegionDescriptor; classId: string | null }[] = [];
    const matched = new Set<number>();
    const decidedProposals = new Set<number>();
    // What the reviewer decided on each shown proposal: what the studio records (sessionLearner), so what the shown map is fitted on.
    const reviewed = new Map<number, boolean>();
    const acceptAllFrom = acceptAllAdvice(shownLog, null).measuredDefault;
    if (!seed) {
      row.acceptAllDefault = acceptAllFrom ?? null;
      acceptAll.photos++;
      if (acceptAllFrom === undefined) acceptAll.photosWithoutDefault++;
    }
    for (const g of seed ? [] : guesses.filter((x) => x.rankingProbability >= options.showFrom)) {
      const p = photo.proposals[g.proposal];
      decidedProposals.add(g.proposal);
      row.shown++;
      let match = -1;
      let bestOverlap = MATCH_IOU;
      for (const k of real) if (!matched.has(k) && p.overlaps[k] >= bestOverlap) [match, bestOverlap] = [k, p.overlaps[k]];
      // Among equally good matches the reviewer keeps the proposed class when it is one of them.
      const sameClass = real.find((k) => !matched.has(k) && p.overlaps[k] >= MATCH_IOU && classOf(gts[k].categoryId) === g.classId);
      if (sameClass !== undefined) match = sameClass;
      const correct = match >= 0 && classOf(gts[match].categoryId) === g.classId;
      shownLog.push({ photo: index, classId: g.classId, probability: g.probability, rankingProbability: g.rankingProbability, correct, ...(g.relation ? { relation: g.relation } : {}) });
      reviewed.set(g.proposal, correct);
      if (!seed) {
        classRow(g.classId).shown++;
        if (correct) classRow(g.classId).accepted++;
      }
      if (acceptAllFrom !== undefined && g.probability >= acceptAllFrom) {
        row.acceptAllLetThrough++;
        if (correct) row.acceptAllRight++;
      }
      model.recordDecision({ raw: g.raw, correct, ...(g.evidence === undefined ? {} : { evidence: g.evidence }) }, g.source);
      if (match >= 0) {
        matched.add(match);
        examples.push({ descriptor: p.descriptor, classId: classOf(gts[match].categoryId) });
        if (correct) row.accepted++;
        else row.reclassed++;
      } else {
        row.rejected++;
        if (!(options.skipPartialNegatives && partial(p.overlaps))) examples.push({ descriptor: p.descriptor, classId: null });
      }
    }
    for (const k of real) {
      if (matched.has(k)) continue;
      if (!seed) {
        row.handAdded++;
        classRow(classOf(gts[k].categoryId)).handAdded++;
      }
      examples.push({ descriptor: gts[k].descriptor, classId: classOf(gts[k].categoryId) });
    }
    // The finished photo: the proposals nobody was asked about are labelled by what they overlap, and
    // the tool's guesses on them are recorded against it (out of sample: it has not learned this photo).
    const guessOf = new Map(guesses.map((g) => [g.proposal, g]));
    photo.proposals.forEach((p, k) => {
      if (decidedProposals.has(k)) return;
      let match = -1;
      let bestOverlap = MATCH_IOU;
      gts.forEach((g, j) => {
        if (p.overlaps[j] >= bestOverlap && !(g.boxOnly && reachesOutside(p, g.box))) [match, bestOverlap] = [j, p.overlaps[j]];
      });
      if (match >= 0 && gts[match].crowd) return;
      if (match < 0 && options.skipPartialNegatives && partial(p.overlaps)) return;
      const classId = match >= 0 ? classOf(gts[match].categoryId) : null;
      examples.push({ descriptor: p.descriptor, classId });
      const g = guessOf.get(k);
      if (g) model.recordDecision({ raw: g.raw, correct: g.classId === classId, ...(g.evidence === undefined ? {} : { evidence: g.evidence }) }, g.source);
    });
    options.onLessons?.(photo, seed, examples, model);
    const t1 = performance.now();
    const c1 = process.cpuUsage();
    model.learnAll(examples);
    if (options.rankOverlaps !== false) {
      model.recordProposalOutcomes(proposalOutcomes(judged, reviewed));
    }
    row.learnMs = performance.now() - t1;
    const used = process.cpuUsage(c1);
    row.learnCpuMs = (used.user + used.system) / 1000;
    row.actions = row.shown + HAND_LABEL_ACTIONS * row.handAdded;
    row.toolMs = photo.ms.embed + photo.ms.everything + photo.ms.detect + photo.ms.describe + row.classifyMs;
    if (!seed) {
      learnMs.push(row.learnMs);
      learnCpuMs.push(row.learnCpuMs);
      toolMs.push(row.toolMs + row.learnMs);
      totals.instances += row.instances;
      totals.shown += row.shown;
      totals.accepted += row.accepted;
      totals.reclassed += row.reclassed;
      totals.rejected += row.rejected;
      totals.handAdded += row.handAdded;
      acceptAll.count += row.acceptAllLetThrough;
      acceptAll.right += row.acceptAllRight;
    }
    byImage.push(row);
  }

  const perClassAp = [...positivesByClass.entries()].map(([classId, n]) => averagePrecision(ranked.filter((r) => r.classId === classId), n));
  [...positivesByClass.keys()].forEach((classId, i) => {
    const r = classRow(classId);
    r.ap50 = perClassAp[i];
    r.recall = r.accepted / r.instances;
    r.precision = r.shown ? r.accepted / r.shown : NaN;
  });
  const allPositives = [...positivesByClass.values()].reduce((s, n) => s + n, 0);
  const calibration = expectedCalibrationError(shownLog);
  return {
    learn: {
      ap50: mean(perClassAp),
      ap50Pooled: averagePrecision(ranked, allPositives),
      ap50OfDisplayed: mean([...positivesByClass.entries()].map(([classId, n]) => averagePrecision(ranked.filter((r) => r.classId === classId).map((r) => ({ ...r, probability: r.displayed ?? r.probability })), n))),
      recall: totals.instances ? (totals.accepted + totals.reclassed) / totals.instances : NaN,
      precision: totals.shown ? totals.accepted / totals.shown : NaN,
      recallAtPrecision70: recallAtPrecision(ranked, allPositives, 0.7),
      actionsPerInstance: totals.instances ? (totals.shown + HAND_LABEL_ACTIONS * totals.handAdded) / totals.instances : NaN,
      ece: calibration.ece,
      msPerImageNode: mean(toolMs),
      learnMsP95: percentile(learnMs, 0.95),
      learnMsMean: mean(learnMs),
      learnCpuMsP95: percentile(learnCpuMs, 0.95),
      ...totals,
      acceptAllAtEnd: acceptAllAdvice(shownLog, null),
      acceptAllHeldOut: { precision: acceptAll.count ? acceptAll.right / acceptAll.count : undefined, ...acceptAll },
      eceIfCalibrated: eceIfCalibrated(shownLog.map((s) => s.probability)),
      reliability: calibration.bins,
    },
    byImage,
    byClass: [...classRows.values()].filter((r) => r.instances > 0).sort((a, b) => b.instances - a.instances),
    decisions: shownLog,
    apLossSplit: splitLoss(scoredForSplit, options.showFrom),
    ranked,
  };
}

/** One scored photo as the AP loss split reads it (apLossSplit.ts). */
function lossSplitInput(photo: CachedPhoto, judged: readonly JudgedGuess[], real: readonly number[], classOf: (id: number) => string): ScoredPhotoInput {
  const takenAt = real.map((k) => judged.find((j) => j.instance === k)?.guess.rankingProbability);
  const wrong = judged
    .filter((j) => !j.truePositive)
    .map((j) => {
      const p = photo.proposals[j.guess.proposal];
      const ofClass = real.filter((k) => classOf(photo.instances[k].categoryId) === j.guess.classId);
      return { probability: j.guess.rankingProbability, truePositive: false, box: p.box, overlaps: ofClass.map((k) => p.overlaps[k]), instanceBoxes: ofClass.map((k) => photo.instances[k].box) };
    });
  return { fitting: real.map((k) => photo.proposals.some((p) => p.overlaps[k] >= MATCH_IOU)), takenAt, wrong };
}

/** One scored photo's instances, by class: had a proposal, got another class, matched by a guess of their own. */
function countByClass(
  photo: CachedPhoto,
  guesses: readonly Guess[],
  judged: readonly { guess: Guess; truePositive: boolean }[],
  real: readonly number[],
  classOf: (id: number) => string,
  classRow: (classId: string) => ClassRow,
): void {
  const guessOf = new Map(guesses.map((g) => [g.proposal, g]));
  for (const k of real) {
    const row = classRow(classOf(photo.instances[k].categoryId));
    row.instances++;
    let best = -1;
    photo.proposals.forEach((p, j) => {
      if (p.overlaps[k] >= MATCH_IOU && (best < 0 || p.overlaps[k] > photo.proposals[best].overlaps[k])) best = j;
    });
    if (best < 0) continue;
    row.withProposal++;
    if (guessOf.get(best)?.classId !== row.classId) row.otherClass++;
  }
  for (const j of judged) if (j.truePositive) classRow(j.guess.classId).guessed++;
}

/**
 * What the ranker and the shown map learn from a finished photo's judged guesses. A shown one is
 * learned as the reviewer decided it, as the studio records it: a guess the AP judging counts right can
 * be wrong to the reviewer (its instance already taken by a more probable guess re-classed to it, or a
 * crowd). The others, never shown, as the judging counts them.
 */
export function proposalOutcomes(
  judged: readonly { guess: { proposal: number; classId: string; relation?: RelationFeatures }; truePositive: boolean }[],
  reviewed: ReadonlyMap<number, boolean>,
): { relation: RelationFeatures; correct: boolean; shown: boolean; classId: string }[] {
  return judged.map((j) => ({ relation: j.guess.relation!, correct: reviewed.get(j.guess.proposal) ?? j.truePositive, shown: reviewed.has(j.guess.proposal), classId: j.guess.classId }));
}

/** Whether the options are the product's: its detector prior, suppression and ranking all on. */
const productRule = (options: ReplayOptions) => options.detectorPrior !== false && options.suppressParts !== false && options.rankOverlaps !== false;

/** The photo's guesses as the product ranks them (proposeLearned.ts rankCandidates, the studio's, the CLI's and the jobs' path), every one the ranking keeps. */
function productGuesses(model: LearnedClasses, photo: CachedPhoto, personClasses: readonly string[]): Guess[] {
  const candidates = photo.proposals.map((p) => ({ ...p, quality: p.confidence }));
  return rankCandidates(model, candidates, photo.proposals.map((p) => p.descriptor), 0, [], personClasses).map((r) => ({
    proposal: r.index,
    classId: r.classId,
    probability: r.probability,
    rankingProbability: r.rankingProbability,
    relation: r.relation,
    raw: r.raw,
    ...(r.evidence === undefined ? {} : { evidence: r.evidence }),
    source: r.source,
  }));
}

/**
 * The photo's guesses with a part of the product's rule switched off (--no-detector-prior,
 * --no-suppress, --no-rank-overlaps): the ablations.
 */
function ablatedGuesses(model: LearnedClasses, photo: CachedPhoto, options: ReplayOptions, personClasses: ReadonlySet<string>): Guess[] {
  const guesses: Guess[] = [];
  // The product's guess (proposeLearned.ts bestGuess); without the detector prior no class is a detector's word.
  const detectorClasses = options.detectorPrior !== false ? [...personClasses] : [];
  photo.proposals.forEach((p, k) => {
    const guess = bestGuess(model, p, p.descriptor, detectorClasses);
    if (guess && guess.probability >= RANK_FROM) guesses.push({ proposal: k, ...guess, rankingProbability: guess.probability });
  });
  guesses.sort((a, b) => b.probability - a.probability);
  if (options.suppressParts !== false) {
    const kept = new Set(suppressSameClassOverlaps(guesses.map((g) => ({ ...g, box: photo.proposals[g.proposal].box }))).map((g) => g.proposal));
    guesses.splice(0, guesses.length, ...guesses.filter((g) => kept.has(g.proposal)));
  }
  if (options.rankOverlaps !== false) {
    const ranked = model.rankProposals(guesses.map((g) => ({ ...g, box: photo.proposals[g.proposal].box, quality: photo.proposals[g.proposal].confidence })));
    guesses.forEach((g, i) => {
      g.relation = ranked[i].relation;
      g.probability = ranked[i].probability;
      g.rankingProbability = ranked[i].rankingProbability;
    });
    guesses.sort((a, b) => b.rankingProbability - a.rankingProbability);
  }
  return guesses;
}

/** A guess judged as a detection: `instance` is the ground truth it took, if it took one. */
interface JudgedGuess {
  readonly guess: Guess;
  readonly truePositive: boolean;
  readonly instance?: number;
}

/**
 * Each guess, most probable first, as a detection: true when it matches (IoU ≥ MATCH_IOU) an instance
 * of its class that no more probable guess took. Guesses on a crowd region of their class are left out.
 */
function judgeGuesses(photo: CachedPhoto, guesses: readonly Guess[], real: readonly number[], classOf: (id: number) => string): JudgedGuess[] {
  const gts = photo.instances;
  const taken = new Set<number>();
  const out: JudgedGuess[] = [];
  for (const g of guesses) {
    const p = photo.proposals[g.proposal];
    let match = -1;
    let bestOverlap = MATCH_IOU;
    for (const k of real) {
      if (taken.has(k) || classOf(gts[k].categoryId) !== g.classId) continue;
      if (p.overlaps[k] >= bestOverlap) [match, bestOverlap] = [k, p.overlaps[k]];
    }
    if (match >= 0) taken.add(match);
    else if (crowdOf(photo, g.proposal, g.classId, classOf)) continue;
    out.push({ guess: g, truePositive: match >= 0, ...(match >= 0 ? { instance: match } : {}) });
  }
  return out;
}

/**
 * The product's rule for a box the person drew (lessonsOfLabelledPhoto): a region is that object only
 * when INSIDE_DRAWN_BOX of its mask lies inside the box. The cache keeps no masks, so this tells only the
 * sure cases: the part of the mask inside the box is at most the boxes' intersection.
 */
function reachesOutside(p: CachedPhoto['proposals'][number], box: CachedInstance['box']): boolean {
  const w = Math.max(0, Math.min(p.box.x1, box.x1) - Math.max(p.box.x0, box.x0));
  const h = Math.max(0, Math.min(p.box.y1, box.y1) - Math.max(p.box.y0, box.y0));
  return p.area > 0 && (w * h) / p.area < INSIDE_DRAWN_BOX;
}

function partial(overlaps: readonly number[]): boolean {
  const best = Math.max(0, ...overlaps);
  return best >= 0.1 && best < MATCH_IOU;
}

function crowdOf(photo: CachedPhoto, proposal: number, classId: string, classOf: (id: number) => string): boolean {
  return photo.instances.some((g, k) => g.crowd && classOf(g.categoryId) === classId && photo.proposals[proposal].overlaps[k] >= MATCH_IOU);
}

/** COCO's 101-point interpolated average precision of a ranked list against `positives` instances. */
export function averagePrecision(list: readonly { probability: number; truePositive: boolean }[], positives: number): number {
  if (positives === 0) return NaN;
  const sorted = [...list].sort((a, b) => b.probability - a.probability);
  const precision: number[] = [];
  const recall: number[] = [];
  let tp = 0;
  sorted.forEach((r, i) => {
    if (r.truePositive) tp++;
    precision.push(tp / (i + 1));
    recall.push(tp / positives);
  });
  for (let i = precision.length - 2; i >= 0; i--) precision[i] = Math.max(precision[i], precision[i + 1]);
  let sum = 0;
  for (let s = 0; s <= 100; s++) {
    const r = s / 100;
    const i = recall.findIndex((x) => x >= r);
    sum += i < 0 ? 0 : precision[i];
  }
  return sum / 101;
}

/** The highest recall of a ranked list at a cut whose precision is at least `minPrecision`. */
export function recallAtPrecision(list: readonly { probability: number; truePositive: boolean }[], positives: number, minPrecision: number): number {
  const sorted = [...list].sort((a, b) => b.probability - a.probability);
  let tp = 0;
  let best = 0;
  sorted.forEach((r, i) => {
    if (r.truePositive) tp++;
    if (tp / (i + 1) >= minPrecision) best = Math.max(best, tp / positives);
  });
  return positives ? best : NaN;
}

/** The mean ECE of `probabilities` against outcomes drawn from them (a deterministic generator): what sampling alone leaves. */
export function eceIfCalibrated(probabilities: readonly number[], draws = 200): number {
  let state = 1;
  // Park and Miller's generator: exact in doubles, and the same draws on every run.
  const random = () => (state = (state * 48271) % 2147483647) / 2147483647;
  let sum = 0;
  for (let d = 0; d < draws; d++) sum += expectedCalibrationError(probabilities.map((probability) => ({ probability, correct: random() < probability }))).ece;
  return probabilities.length ? sum / draws : NaN;
}

function mean(values: readonly number[]): number {
  const finite = values.filter((v) => Number.isFinite(v));
  return finite.length ? finite.reduce((s, v) => s + v, 0) / finite.length : NaN;
}

function percentile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}
