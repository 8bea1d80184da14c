/**
 * The probability a person sees, calibrated on that person's own decisions (issue 37, item 3).
 *
 * The overlap ranker's score is a logistic fit over every proposal it ranked, most of them improbable,
 * with features read from a classifier that keeps changing as it learns: its average is right over
 * that whole population, not over the few proposals a person is shown. So the score is mapped once
 * more, last, on what matters: each shown proposal and whether the person kept it as proposed
 * (accept = right; reject, re-class = wrong). The map is monotone, so it never changes the order of
 * the proposals it is applied to at one moment.
 *
 * The decisions are kept with what the score was computed from (the ranker's features) and, where
 * known, the score the ranker gave them before it learned from them. The map is fitted on that held-out
 * score: it is what the map is applied to, a score for a proposal the ranker has not learned from.
 * The score the ranker gives a decision after learning from it is in-sample: the ranker has moved
 * towards that very outcome, so right and wrong decisions lie further apart than new proposals' scores
 * do, and a map fitted on them is over-confident at the top and under-confident below (measured in
 * docs/RESULTS.md). Decisions without a held-out score (models saved before it was kept) are scored as
 * the ranker scores them now.
 *
 * The maps, chosen by measurement (docs/RESULTS.md):
 * - `platt` (the default): σ(a·logit(s) + b) pulled towards the identity (calibration.ts fitPlatt);
 * - `isotonic`: pool-adjacent-violators over the decisions plus pseudo-decisions that say the score is
 *   right (the identity), so a handful of decisions cannot swing it and many overrule it.
 * `none` shows the score itself (the measurement's baseline). Measured against `platt` and not
 * chosen (h37-ece): `beta` (calibration.ts fitBeta), `platt-recent` (the newest decisions count most,
 * for held-out scores that came from an older model) and `platt-class` (a map per class, pulled
 * towards the shared one).
 *
 * Two maps, one after the other. The first (`method`) decides: which proposals reach `showFrom` and
 * in what order, so it decides what the person is asked and so what the model learns next. The second
 * (`displayMethod`) only displays: it maps the first one's probability once more, fitted on the
 * probability each decision was shown with (held out, as the person saw it), and "accept all" reads
 * it. A map that both decided and displayed could not be judged on calibration alone: switching it
 * showed other proposals, taught other decisions, and moved AP and actions as much as ECE
 * (docs/RESULTS.md, h37-calib). Its default is `none` (the first map's probability, displayed as it
 * is): of the maps measured as display maps none lowered ECE on every learn set.
 *
 * Why Platt: few decisions lie above a high score, so at the top edge the isotonic map is made mostly
 * of the identity's pseudo-decisions and shows about the score itself, 0.97 as 0.98, however often the
 * person's decisions below it were wrong. The ranker's score is over-confident there, so the isotonic
 * map promised most where it knew least. Platt's two parameters are fitted on every decision and carry
 * their slope to the top. (While the fit was on in-sample scores, Platt measured worse; on held-out
 * scores it measures better, on both datasets.)
 */
import { applyBeta, applyPlatt, fitBeta, fitPlatt, type Decision, type PlattMap } from './calibration';

export const SHOWN_CALIBRATION_METHODS = ['platt', 'platt-recent', 'platt-class', 'beta', 'isotonic', 'none'] as const;
export type ShownCalibrationMethod = (typeof SHOWN_CALIBRATION_METHODS)[number];

export interface ShownOutcome {
  /** What the score is computed from (the overlap ranker's features). */
  readonly x: readonly number[];
  readonly correct: boolean;
  /** The score before the ranker learned from this decision. */
  readonly heldOutScore?: number;
  /** The class it was proposed as ('platt-class' maps each class on its own decisions). */
  readonly classId?: string;
  /**
   * The ranking probability (`probability`) it had when decided, the map then fitted: what the display
   * map is fitted on, the measured-so-far counterpart of what the person was promised.
   */
  readonly heldOutRanking?: number;
}

/** The score before this map, of a decision's features. */
export type Scorer = (x: readonly number[]) => number;

export interface ShownCalibrationState {
  readonly method: ShownCalibrationMethod;
  /** The display map's (absent in models saved before it: `none`, the ranking probability shown as it is). */
  readonly displayMethod?: ShownCalibrationMethod;
  readonly outcomes: readonly ShownOutcome[];
}

export const DEFAULT_SHOWN_CALIBRATION: ShownCalibrationMethod = 'platt';
/** The display map (docs/RESULTS.md, h37-calib). */
export const DEFAULT_DISPLAY_CALIBRATION: ShownCalibrationMethod = 'none';
/** The newest decisions kept: a person's model changes as it learns, and old decisions describe an older one. */
const MAX_OUTCOMES = 2000;
/** The isotonic map's prior: this many pseudo-decisions per tenth of the score's range, each right as often as its score says. */
const PRIOR_PER_TENTH = 2;
/** Keeps the isotonic map strictly increasing where it is flat, so equal calibrated values never tie proposals the score ordered. */
const TIE_BREAK = 1e-6;

/** A monotone, non-decreasing map of [0, 1] given by points to interpolate between. */
interface StepMap {
  readonly scores: readonly number[];
  readonly values: readonly number[];
}

export class ShownCalibration {
  private outcomes: ShownOutcome[] = [];
  /** Decides: which proposals are shown (from `showFrom`) and in what order. */
  private ranking: FittedMap = IDENTITY_FIT;
  /** Displays: a map of the ranking probability, so a better displayed number moves no decision. */
  private display: FittedMap = IDENTITY_FIT;

  /**
   * `method` maps the ranker's score to the probability that decides what is shown; `displayMethod`
   * maps that probability once more to the one displayed (and that "accept all" is advised on): a
   * better displayed number must not show other proposals, which would teach the model other decisions.
   */
  constructor(
    readonly method: ShownCalibrationMethod = DEFAULT_SHOWN_CALIBRATION,
    readonly displayMethod: ShownCalibrationMethod = DEFAULT_DISPLAY_CALIBRATION,
  ) {}

  /** How many decisions it has been fitted on. */
  get decisions(): number {
    return this.outcomes.length;
  }

  /** The probability that decides whether and where a proposal of `classId` with this score is shown (the identity before any decision). */
  probability(score: number, classId?: string): number {
    return this.ranking.apply(score, classId);
  }

  /** The probability displayed for a score: the ranking probability through the display map (monotone, so the order stays). */
  displayed(score: number, classId?: string): number {
    return this.probabilities(score, classId).probability;
  }

  /** Both of a score's probabilities: the one that decides (`rankingProbability`) and the one displayed from it (`probability`). */
  probabilities(score: number, classId?: string): { probability: number; rankingProbability: number } {
    const rankingProbability = this.probability(score, classId);
    return { probability: this.display.apply(rankingProbability, classId), rankingProbability };
  }

  /** Decisions on shown proposals; `refit` takes them in. Each keeps the ranking probability it had (before the refit). */
  record(outcomes: readonly ShownOutcome[]): void {
    this.outcomes.push(
      ...outcomes.map((o) => copyOutcome(o.heldOutRanking !== undefined || o.heldOutScore === undefined ? o : { ...o, heldOutRanking: this.probability(o.heldOutScore, o.classId) })),
    );
    if (this.outcomes.length > MAX_OUTCOMES) this.outcomes.splice(0, this.outcomes.length - MAX_OUTCOMES);
  }

  /** Fits the maps on the decisions' held-out scores and ranking probabilities, or as `score` gives them now where none was kept. */
  refit(score: Scorer): void {
    const scored = this.outcomes.map((o) => ({ score: o.heldOutScore ?? score(o.x), correct: o.correct, classId: o.classId }));
    this.ranking = fitMap(this.method, scored);
    const ranked = this.outcomes.map((o, i) => ({ ...scored[i], score: o.heldOutRanking ?? this.probability(scored[i].score, o.classId) }));
    this.display = fitMap(this.displayMethod, ranked);
  }

  /** The decisions so far, each with the probability displayed now for its score. */
  decided(score: Scorer): { probability: number; correct: boolean }[] {
    return this.outcomes.map((o) => ({ probability: this.displayed(score(o.x), o.classId), correct: o.correct }));
  }

  toJSON(): ShownCalibrationState {
    return { method: this.method, displayMethod: this.displayMethod, outcomes: this.outcomes.map(copyOutcome) };
  }

  static fromJSON(state: ShownCalibrationState, score: Scorer): ShownCalibration {
    const calibration = new ShownCalibration(state.method, state.displayMethod ?? 'none');
    // Not `record`: a decision saved without its ranking probability is given the one the map fitted now says (refit), not the identity's.
    calibration.outcomes = state.outcomes.slice(-MAX_OUTCOMES).map(copyOutcome);
    calibration.refit(score);
    return calibration;
  }
}

/** A fitted map of [0, 1], and per class where the method maps each class on its own. */
interface FittedMap {
  apply(score: number, classId?: string): number;
}

const IDENTITY_FIT: FittedMap = { apply: (score) => score };

/** `method` fitted on scored decisions, in the order they were made (the newest last). */
function fitMap(method: ShownCalibrationMethod, scored: readonly { score: number; correct: boolean; classId?: string }[]): FittedMap {
  if (method === 'none' || scored.length === 0) return IDENTITY_FIT;
  if (method === 'isotonic') {
    const steps = fitIsotonicTowardsIdentity(scored);
    return { apply: (score) => interpolate(steps, score) };
  }
  const decisions = scored.map((o, i) => ({ raw: o.score, correct: o.correct, weight: method === 'platt-recent' ? recencyWeight(scored.length - 1 - i, scored.length) : 1 }));
  if (method === 'beta') {
    const beta = fitBeta(decisions);
    return { apply: (score) => applyBeta(beta, score) };
  }
  const shared = fitPlatt(decisions);
  const byClass = method === 'platt-class' ? classMaps(decisions, scored, shared) : new Map<string, PlattMap>();
  return { apply: (score, classId) => applyPlatt((classId === undefined ? undefined : byClass.get(classId)) ?? shared, score) };
}

/**
 * Pool-adjacent-violators over the decisions (target 1 or 0) and the prior's pseudo-decisions (at the
 * middle of each hundredth of [0, 1], target the score itself), weighted least squares: the non-
 * decreasing step function closest to them. Each pooled block becomes one point (its mean score, its
 * mean target) to interpolate between.
 */
export function fitIsotonicTowardsIdentity(outcomes: readonly { score: number; correct: boolean }[], priorPerTenth = PRIOR_PER_TENTH): StepMap {
  const grid = 100;
  const points = [
    ...outcomes.map((o) => ({ score: o.score, target: o.correct ? 1 : 0, weight: 1 })),
    ...Array.from({ length: grid }, (_, k) => ({ score: (k + 0.5) / grid, target: (k + 0.5) / grid, weight: (priorPerTenth * 10) / grid })),
  ]
    .filter((p) => p.weight > 0)
    .sort((a, b) => a.score - b.score);
  const blocks: { weight: number; scoreSum: number; targetSum: number }[] = [];
  for (const p of points) {
    blocks.push({ weight: p.weight, scoreSum: p.weight * p.score, targetSum: p.weight * p.target });
    while (blocks.length > 1 && mean(blocks[blocks.length - 2]) >= mean(blocks[blocks.length - 1])) {
      const last = blocks.pop()!;
      const into = blocks[blocks.length - 1];
      into.weight += last.weight;
      into.scoreSum += last.scoreSum;
      into.targetSum += last.targetSum;
    }
  }
  return { scores: blocks.map((b) => b.scoreSum / b.weight), values: blocks.map(mean) };
}

/**
 * A decision's weight in the 'platt-recent' fit, `age` decisions after it were made, of `count`: its
 * held-out score came from the model of its time, older and weaker the older it is, so the map of the
 * current model's scores leans on the newest. Half-life: half the decisions so far, the same share at
 * every length of session (a model learning at a rate ~1/t changes as much from t/2 to t whatever t).
 */
export function recencyWeight(age: number, count: number): number {
  return 0.5 ** (age / Math.max(1, count / 2));
}

/**
 * Per class, Platt on that class's decisions pulled towards the shared map instead of the identity
 * (the same strength): a class with a handful of decisions shows about what the shared map shows, one
 * with hundreds (a person's "person") its own.
 */
function classMaps(decisions: readonly Decision[], scored: readonly { classId?: string }[], shared: PlattMap): Map<string, PlattMap> {
  const byClass = new Map<string, Decision[]>();
  scored.forEach((o, i) => {
    if (o.classId === undefined) return;
    const own = byClass.get(o.classId);
    if (own) own.push(decisions[i]);
    else byClass.set(o.classId, [decisions[i]]);
  });
  return new Map([...byClass].map(([classId, own]) => [classId, fitPlatt(own, undefined, shared)]));
}

const copyOutcome = (o: ShownOutcome): ShownOutcome => ({
  x: [...o.x],
  correct: o.correct,
  ...(o.heldOutScore === undefined ? {} : { heldOutScore: o.heldOutScore }),
  ...(o.classId === undefined ? {} : { classId: o.classId }),
  ...(o.heldOutRanking === undefined ? {} : { heldOutRanking: o.heldOutRanking }),
});

const mean = (block: { weight: number; targetSum: number }) => block.targetSum / block.weight;

function interpolate(map: StepMap, score: number): number {
  const { scores, values } = map;
  const tieBreak = TIE_BREAK * (score - 0.5);
  if (score <= scores[0]) return clamp(values[0] + tieBreak);
  const last = scores.length - 1;
  if (score >= scores[last]) return clamp(values[last] + tieBreak);
  let hi = 1;
  while (scores[hi] < score) hi++;
  const lo = hi - 1;
  const t = (score - scores[lo]) / (scores[hi] - scores[lo]);
  return clamp(values[lo] + t * (values[hi] - values[lo]) + tieBreak);
}

const clamp = (p: number) => Math.min(1, Math.max(0, p));
