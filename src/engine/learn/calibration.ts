/**
 * Confidence that means what it says (issue 37, item 3): probabilities are re-mapped on the person's
 * own decisions, and what a threshold lets through is measured on them.
 *
 * Every proposal the person decides is recorded with the probability the model gave it *before* it
 * learned from that decision (an honest, out-of-sample guess) and whether it was right. Platt scaling
 * (a logistic map of the logit, fitted by Newton's method) turns raw probabilities into calibrated
 * ones; a prior pulls the map towards the identity, so a handful of decisions cannot swing it.
 */

export interface Decision {
  /** The model's probability before calibration, when the decision was made. */
  readonly raw: number;
  readonly correct: boolean;
}

/** p ↦ σ(slope · logit(p) + offset). */
export interface PlattMap {
  readonly slope: number;
  readonly offset: number;
}

export const IDENTITY_MAP: PlattMap = { slope: 1, offset: 0 };

/** Pseudo-decisions' weight of the prior towards the identity map. */
const PRIOR_STRENGTH = 5;
/** Raw probabilities are read no closer to 0 or 1 than this: a saturated model still gets a finite logit. */
const EPSILON = 1e-4;
/** Newton steps are scaled down to this size: far from the optimum the curvature of saturated points is tiny. */
const MAX_STEP = 2;

export function logit(p: number): number {
  const q = Math.min(1 - EPSILON, Math.max(EPSILON, p));
  return Math.log(q / (1 - q));
}

export function sigmoid(z: number): number {
  return z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));
}

export function applyPlatt(map: PlattMap, raw: number): number {
  return sigmoid(map.slope * logit(raw) + map.offset);
}

/** The map minimising the log loss on `decisions`, plus a quadratic pull towards the identity. */
export function fitPlatt(decisions: readonly Decision[], priorStrength = PRIOR_STRENGTH): PlattMap {
  const xs = decisions.map((d) => logit(d.raw));
  const loss = (a: number, b: number) =>
    decisions.reduce((sum, d, i) => {
      const z = a * xs[i] + b;
      // −log σ(z) for a right decision, −log(1 − σ(z)) for a wrong one, computed without overflow.
      const signed = d.correct ? -z : z;
      return sum + (signed > 0 ? signed + Math.log1p(Math.exp(-signed)) : Math.log1p(Math.exp(signed)));
    }, 0) + (priorStrength / 2) * ((a - 1) ** 2 + b ** 2);
  let a = 1;
  let b = 0;
  let current = loss(a, b);
  for (let iteration = 0; iteration < 100; iteration++) {
    // Gradient and Hessian of the negative log likelihood plus the prior.
    let ga = priorStrength * (a - 1);
    let gb = priorStrength * b;
    let haa = priorStrength;
    let hab = 0;
    let hbb = priorStrength;
    decisions.forEach((d, i) => {
      const p = sigmoid(a * xs[i] + b);
      const r = p - (d.correct ? 1 : 0);
      const w = p * (1 - p);
      ga += r * xs[i];
      gb += r;
      haa += w * xs[i] * xs[i];
      hab += w * xs[i];
      hbb += w;
    });
    const det = haa * hbb - hab * hab;
    if (!(det > 0)) break;
    let da = (hbb * ga - hab * gb) / det;
    let db = (haa * gb - hab * ga) / det;
    const size = Math.max(Math.abs(da), Math.abs(db));
    if (size > MAX_STEP) [da, db] = [(da * MAX_STEP) / size, (db * MAX_STEP) / size];
    // Backtracking: far from the optimum a full Newton step can overshoot.
    let t = 1;
    let next = loss(a - da, b - db);
    while (next > current && t > 1e-4) {
      t /= 2;
      next = loss(a - t * da, b - t * db);
    }
    if (next > current) break;
    a -= t * da;
    b -= t * db;
    const gain = current - next;
    current = next;
    if (gain < 1e-9) break;
  }
  return { slope: a, offset: b };
}

export interface ReliabilityBin {
  readonly from: number;
  readonly to: number;
  readonly count: number;
  readonly meanProbability: number;
  readonly accuracy: number;
}

/** Expected calibration error over equal-width bins: the count-weighted gap between confidence and accuracy. */
export function expectedCalibrationError(shown: readonly { probability: number; correct: boolean }[], bins = 10): { ece: number; bins: ReliabilityBin[] } {
  const sums = Array.from({ length: bins }, () => ({ count: 0, p: 0, right: 0 }));
  for (const s of shown) {
    const bin = sums[Math.min(bins - 1, Math.floor(s.probability * bins))];
    bin.count++;
    bin.p += s.probability;
    bin.right += s.correct ? 1 : 0;
  }
  let ece = 0;
  const out = sums.map((s, k) => {
    if (s.count) ece += (s.count / shown.length) * Math.abs(s.p / s.count - s.right / s.count);
    return { from: k / bins, to: (k + 1) / bins, count: s.count, meanProbability: s.count ? s.p / s.count : NaN, accuracy: s.count ? s.right / s.count : NaN };
  });
  return { ece: shown.length ? ece : NaN, bins: out };
}

/** Of the decisions at or above `threshold` (calibrated), how many there were and the share that was right. */
export function precisionAt(decided: readonly { probability: number; correct: boolean }[], threshold: number): { precision: number | undefined; count: number } {
  const above = decided.filter((d) => d.probability >= threshold);
  return { precision: above.length ? above.filter((d) => d.correct).length / above.length : undefined, count: above.length };
}

/**
 * The lowest threshold (in steps of 0.01) whose measured precision is at least `target`, counting at
 * least `minCount` decisions; undefined when no threshold qualifies yet.
 */
export function lowestThresholdWithPrecision(
  decided: readonly { probability: number; correct: boolean }[],
  target = 0.95,
  minCount = 10,
): number | undefined {
  for (let step = 0; step <= 100; step++) {
    const threshold = step / 100;
    const { precision, count } = precisionAt(decided, threshold);
    if (count < minCount) return undefined;
    if (precision !== undefined && precision >= target) return threshold;
  }
  return undefined;
}
