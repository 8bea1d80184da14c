/**
 * Confidence that means what it says (issue 37, item 3): probabilities are re-mapped on the person's
 * own decisions (what a threshold lets through is measured in acceptAll.ts).
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
  /** How much it counts in a fit (default 1). */
  readonly weight?: number;
  /**
   * A second opinion on the same class, when there is one: the learned classes' raw probability for the
   * class a detector named (its score is `raw`). The map then weighs both, as the decisions say.
   */
  readonly evidence?: number;
}

/** p ↦ σ(slope · logit(p) + offset), plus `evidence` · logit(e) for a second opinion e when the map has one. */
export interface PlattMap {
  readonly slope: number;
  readonly offset: number;
  readonly evidence?: number;
}

export const IDENTITY_MAP: PlattMap = { slope: 1, offset: 0 };

/** Pseudo-decisions' weight of the prior towards the identity map. */
const PRIOR_STRENGTH = 5;
/** Raw probabilities are read no closer to 0 or 1 than this: a saturated model still gets a finite logit. */
const EPSILON = 1e-4;
/** Newton steps are scaled down to this size: far from the optimum the curvature of saturated points is tiny. */
const MAX_STEP = 2;
/** Newton steps at most: the small fits here converge in a handful. */
const MAX_ITERATIONS = 100;

export function logit(p: number): number {
  const q = Math.min(1 - EPSILON, Math.max(EPSILON, p));
  return Math.log(q / (1 - q));
}

export function sigmoid(z: number): number {
  return z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));
}

/** Without `evidence` (or on a map fitted without any) the second opinion has no say. */
export function applyPlatt(map: PlattMap, raw: number, evidence?: number): number {
  return sigmoid(map.slope * logit(raw) + map.offset + (map.evidence !== undefined && evidence !== undefined ? map.evidence * logit(evidence) : 0));
}

/**
 * The map minimising the log loss on `decisions`, plus a quadratic pull towards `prior` (the identity
 * unless given). When some decisions carry a second opinion (`evidence`) its weight is fitted too,
 * pulled towards no say; a decision without one reads as no evidence either way.
 */
export function fitPlatt(decisions: readonly Decision[], priorStrength = PRIOR_STRENGTH, prior: PlattMap = IDENTITY_MAP): PlattMap {
  const withEvidence = decisions.some((d) => d.evidence !== undefined);
  const features = (d: Decision) => (withEvidence ? [logit(d.raw), 1, d.evidence === undefined ? 0 : logit(d.evidence)] : [logit(d.raw), 1]);
  const [slope, offset, evidence] = fitLogistic(
    decisions.map((d) => ({ x: features(d), correct: d.correct, weight: d.weight })),
    withEvidence ? [prior.slope, prior.offset, prior.evidence ?? 0] : [prior.slope, prior.offset],
    priorStrength,
  );
  return withEvidence ? { slope, offset, evidence } : { slope, offset };
}

/**
 * Beta calibration (Kull, Silva Filho and Flach, 2017): p ↦ σ(a·ln p − b·ln(1 − p) + c). Platt's map is
 * its a = b case, symmetric in the logit; with a ≠ b it can be steeper on one side of the scale than on
 * the other, as a score that is under-confident in the middle and over-confident at the top needs.
 */
export interface BetaMap {
  readonly a: number;
  readonly b: number;
  readonly c: number;
}

export const IDENTITY_BETA_MAP: BetaMap = { a: 1, b: 1, c: 0 };

const betaFeatures = (raw: number): number[] => {
  const q = Math.min(1 - EPSILON, Math.max(EPSILON, raw));
  return [Math.log(q), -Math.log1p(-q), 1];
};

export function applyBeta(map: BetaMap, raw: number): number {
  const [lnP, lnNotP] = betaFeatures(raw);
  return sigmoid(map.a * lnP + map.b * lnNotP + map.c);
}

/**
 * The beta map minimising the log loss on `decisions` plus the same pull towards the identity as
 * fitPlatt's. A negative a or b would make the map fall somewhere on (0, 1) and reorder proposals; the
 * fit then keeps Platt's monotone map instead (the a = b case).
 */
export function fitBeta(decisions: readonly Decision[], priorStrength = PRIOR_STRENGTH): BetaMap {
  const [a, b, c] = fitLogistic(
    decisions.map((d) => ({ x: betaFeatures(d.raw), correct: d.correct, weight: d.weight })),
    [IDENTITY_BETA_MAP.a, IDENTITY_BETA_MAP.b, IDENTITY_BETA_MAP.c],
    priorStrength,
  );
  if (a > 0 && b > 0) return { a, b, c };
  const platt = fitPlatt(decisions, priorStrength);
  return { a: platt.slope, b: platt.slope, c: platt.offset };
}

/**
 * Logistic regression by Newton's method, minimising the log loss plus (strength / 2)·|w − prior|²
 * (Platt's map here, the overlap ranker in overlapRanker.ts). Far from the optimum a full Newton step
 * can overshoot, so steps are capped in size and halved until the loss falls. A datum's `weight`
 * (default 1) counts it as that many.
 */
export function fitLogistic(data: readonly { x: readonly number[]; correct: boolean; weight?: number }[], prior: readonly number[], strength: number): number[] {
  const d = prior.length;
  const loss = (w: readonly number[]) =>
    data.reduce((sum, o) => {
      const z = o.x.reduce((s, v, j) => s + v * w[j], 0);
      const signed = o.correct ? -z : z;
      return sum + (o.weight ?? 1) * (signed > 0 ? signed + Math.log1p(Math.exp(-signed)) : Math.log1p(Math.exp(signed)));
    }, 0) + (strength / 2) * w.reduce((s, v, j) => s + (v - prior[j]) ** 2, 0);
  let w = [...prior];
  let current = loss(w);
  for (let iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
    const gradient = w.map((v, j) => strength * (v - prior[j]));
    const hessian = Array.from({ length: d }, (_, r) => Array.from({ length: d }, (_, c) => (r === c ? strength : 0)));
    for (const o of data) {
      const p = sigmoid(o.x.reduce((s, v, j) => s + v * w[j], 0));
      const weight = o.weight ?? 1;
      const r = weight * (p - (o.correct ? 1 : 0));
      const curvature = weight * p * (1 - p);
      for (let a = 0; a < d; a++) {
        gradient[a] += r * o.x[a];
        for (let b = 0; b < d; b++) hessian[a][b] += curvature * o.x[a] * o.x[b];
      }
    }
    const step = solve(hessian, gradient);
    const size = Math.max(...step.map(Math.abs));
    if (!Number.isFinite(size)) break;
    if (size > MAX_STEP) for (let j = 0; j < d; j++) step[j] *= MAX_STEP / size;
    let t = 1;
    let next = w.map((v, j) => v - step[j]);
    let nextLoss = loss(next);
    while (nextLoss > current && t > 1e-4) {
      t /= 2;
      next = w.map((v, j) => v - t * step[j]);
      nextLoss = loss(next);
    }
    if (nextLoss > current) break;
    const gain = current - nextLoss;
    w = next;
    current = nextLoss;
    if (gain < 1e-9) break;
  }
  return w;
}

/** Solves A x = b by Gaussian elimination with partial pivoting (A is small and positive definite here). */
function solve(matrix: readonly (readonly number[])[], vector: readonly number[]): number[] {
  const n = vector.length;
  const a = matrix.map((row, i) => [...row, vector[i]]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(a[r][col]) > Math.abs(a[pivot][col])) pivot = r;
    [a[col], a[pivot]] = [a[pivot], a[col]];
    for (let r = col + 1; r < n; r++) {
      const f = a[r][col] / a[col][col];
      for (let c = col; c <= n; c++) a[r][c] -= f * a[col][c];
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = a[r][n];
    for (let c = r + 1; c < n; c++) s -= a[r][c] * x[c];
    x[r] = s / a[r][r];
  }
  return x;
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
