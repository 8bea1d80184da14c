/**
 * "Accept all ≥ P %" (issue 37, item 3): the one rule for its default threshold and for the precision
 * shown beside it. The studio's review panel and the learn eval both call `acceptAllAdvice`, so the
 * eval measures what the studio shows.
 *
 * A default must hold on the next photo, not only on the decisions it was picked on. Two things make
 * a precision measured on past decisions over-promise:
 * - few decisions: 10 of 10 right is what a 75 % precise threshold gives one time in 20;
 * - picking the lowest of many thresholds that happen to look good.
 * So a threshold qualifies only when an exact one-sided binomial test says its precision is at least
 * TARGET_PRECISION with CONFIDENCE (its Clopper–Pearson lower bound reaches the target), and the
 * thresholds are tested in a fixed order, from the most confident down, stopping at the first that
 * fails (fixed-sequence testing: each test at the full level, the chance that any qualified threshold
 * is worse than the target stays at most 1 − CONFIDENCE).
 */

export interface ScoredDecision {
  /** The confidence shown when the person decided. */
  readonly probability: number;
  /** Kept just as proposed: what "accept all" would have got right. */
  readonly correct: boolean;
}

/** The precision the default threshold is chosen for. */
export const TARGET_PRECISION = 0.95;
/** How sure the default must be of reaching TARGET_PRECISION. */
export const CONFIDENCE = 0.95;
/** Fewer decisions at or above a threshold than this give no precision worth showing. */
export const MIN_DECISIONS = 10;
/** The threshold "accept all" starts at while no threshold qualifies. */
export const UNMEASURED_THRESHOLD = 0.8;

/** Thresholds are whole percentages: what the studio's slider sets. */
const STEPS = 100;

/** Of the decisions at or above `threshold`, how many there were and the share that was right. */
export function precisionAt(decided: readonly ScoredDecision[], threshold: number): { precision: number | undefined; count: number } {
  const above = decided.filter((d) => d.probability >= threshold);
  return { precision: above.length ? above.filter((d) => d.correct).length / above.length : undefined, count: above.length };
}

/**
 * The chance of `right` or more right out of `count` if each were right with probability `precision`:
 * the binomial upper tail, summed in log space so that thousands of decisions neither overflow nor
 * underflow.
 */
export function binomialUpperTail(count: number, right: number, precision: number): number {
  if (right <= 0) return 1;
  if (right > count) return 0;
  if (precision >= 1) return 1;
  if (precision <= 0) return 0;
  const logFactorial = [0];
  for (let i = 1; i <= count; i++) logFactorial.push(logFactorial[i - 1] + Math.log(i));
  const logTerms: number[] = [];
  for (let j = right; j <= count; j++) {
    logTerms.push(logFactorial[count] - logFactorial[j] - logFactorial[count - j] + j * Math.log(precision) + (count - j) * Math.log1p(-precision));
  }
  const largest = Math.max(...logTerms);
  return Math.min(1, Math.exp(largest) * logTerms.reduce((sum, t) => sum + Math.exp(t - largest), 0));
}

/** Whether `right` of `count` show a precision of at least `target` with `confidence` (exact one-sided binomial test). */
export function precisionReaches(count: number, right: number, target = TARGET_PRECISION, confidence = CONFIDENCE): boolean {
  return count > 0 && binomialUpperTail(count, right, target) <= 1 - confidence;
}

/** The fewest decisions that could qualify, all of them right: below this no threshold can. */
export function decisionsNeeded(target = TARGET_PRECISION, confidence = CONFIDENCE): number {
  return Math.ceil(Math.log(1 - confidence) / Math.log(target));
}

/** Decisions at or above each threshold a decision's confidence gives (rounded down to a whole percentage), highest first. */
export function tallyByThreshold(decided: readonly ScoredDecision[]): { threshold: number; count: number; right: number }[] {
  const sorted = [...decided].sort((a, b) => b.probability - a.probability);
  const tally: { threshold: number; count: number; right: number }[] = [];
  let right = 0;
  sorted.forEach((d, i) => {
    if (d.correct) right++;
    const threshold = Math.floor(d.probability * STEPS) / STEPS;
    // Decisions rounding to the same threshold are all counted before it is tested.
    if (i + 1 < sorted.length && sorted[i + 1].probability >= threshold) return;
    tally.push({ threshold, count: i + 1, right });
  });
  return tally;
}

/**
 * The lowest threshold whose precision is at least `target` with `confidence`; undefined while none is.
 *
 * The thresholds tried are the decisions' own confidences (rounded down to a whole percentage), so
 * the default never reaches down into a gap where no decision measured anything. Those with fewer
 * decisions above them than could ever qualify are skipped: that depends on the confidences alone,
 * not on which decisions were right, so the test order stays fixed in advance.
 */
export function confidentThreshold(decided: readonly ScoredDecision[], target = TARGET_PRECISION, confidence = CONFIDENCE): number | undefined {
  const needed = decisionsNeeded(target, confidence);
  let qualified: number | undefined;
  for (const { threshold, count, right } of tallyByThreshold(decided)) {
    if (count < needed) continue;
    if (!precisionReaches(count, right, target, confidence)) break;
    qualified = threshold;
  }
  return qualified;
}

/**
 * Why no threshold qualifies: too few decisions (more of the same could make one qualify: somewhere
 * enough could lie, the precision measured is at the target), or too many wrong ones.
 */
function noDefaultReason(decided: readonly ScoredDecision[]): 'few-decisions' | 'low-precision' {
  const needed = decisionsNeeded();
  const testable = tallyByThreshold(decided).filter((t) => t.count >= needed);
  return testable.length === 0 || testable.some((t) => t.right / t.count >= TARGET_PRECISION) ? 'few-decisions' : 'low-precision';
}

export interface AcceptAllAdvice {
  /** The threshold "accept all" uses: the person's own, else the default, else UNMEASURED_THRESHOLD. */
  readonly threshold: number;
  /** The lowest threshold with ≥ TARGET_PRECISION precision at CONFIDENCE; undefined while none qualifies. */
  readonly measuredDefault: number | undefined;
  /** Why there is no default yet: too few decisions to be sure of any threshold, or enough but too many wrong. */
  readonly noDefaultBecause?: 'few-decisions' | 'low-precision';
  /** Precision measured at `threshold`; undefined with fewer than MIN_DECISIONS there. */
  readonly precision: number | undefined;
  /** Decisions at or above `threshold`. */
  readonly count: number;
}

/** What "accept all" would do at `chosen` (the person's threshold; null: the default) on these decisions. */
export function acceptAllAdvice(decided: readonly ScoredDecision[], chosen: number | null): AcceptAllAdvice {
  const measuredDefault = confidentThreshold(decided);
  const threshold = chosen ?? measuredDefault ?? UNMEASURED_THRESHOLD;
  const { precision, count } = precisionAt(decided, threshold);
  const shown = { threshold, measuredDefault, precision: count >= MIN_DECISIONS ? precision : undefined, count };
  if (measuredDefault !== undefined) return shown;
  return { ...shown, noDefaultBecause: noDefaultReason(decided) };
}
