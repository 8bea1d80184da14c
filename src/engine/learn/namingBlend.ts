/**
 * Naming a region's class from two experts, weighed by the person's own labels (issue 37): the nearest
 * examples' vote (prototypeHead.ts) and the detectors' score for that class around the region (the
 * `detectors` descriptor's column of the class's name; 0 for a class no detector names).
 *
 * Why: on COCO photos the vote alone names a matched proposal right about half the time, while the
 * detectors' own word is right far more often for the classes they know; but how far to trust either
 * differs per person and per class set. So the blend is a conditional logit, P(c) ∝ exp(α·vote_c +
 * β·detector_c), whose two weights are fitted on the person's labelled objects, each scored by the vote
 * before it was learned (out of sample: the vote on an example already held is its own).
 *
 * Until enough labelled objects have been scored, the vote is used as it is.
 */

/**
 * One labelled object as the experts saw it before it was learned, kept sparse (most classes get
 * neither a vote nor a detector score): the classes held then, its class, and [class index, vote,
 * detector score] for each class with either.
 */
export interface NamingRecord {
  readonly classes: number;
  /** Class index (≥ 1: background is never named). */
  readonly c: number;
  readonly entries: readonly (readonly [number, number, number])[];
}

export interface NamingBlendState {
  readonly records: readonly NamingRecord[];
}

/** Fewer records than this and two weights would be fitted on a photo or two: the vote stays as it is. */
export const MIN_NAMING_RECORDS = 20;
/** The newest records kept: the fit stays bounded in cost, and follows the person's classes as they grow. */
export const MAX_NAMING_RECORDS = 1000;
/** Newton steps per fit: two weights converge in a few. */
const NEWTON_STEPS = 8;
/** A weak prior on the weights, so that a fit where one expert never disagrees with the other stays finite. */
const RIDGE = 1e-3;

/** A labelled object's record: the classes (index ≥ 1) where the vote or the detector score is not 0. */
export function namingRecord(vote: ArrayLike<number>, detector: ArrayLike<number>, c: number): NamingRecord {
  const entries: [number, number, number][] = [];
  for (let k = 1; k < vote.length; k++) {
    const d = detector[k] ?? 0;
    if (vote[k] !== 0 || d !== 0 || k === c) entries.push([k, round(vote[k]), round(d)]);
  }
  return { classes: vote.length, c, entries };
}

export class NamingBlend {
  private records: NamingRecord[] = [];

  private weights: { vote: number; detector: number } | undefined;

  /** The fitted weights, undefined while the vote is used as it is. */
  get fitted(): { readonly vote: number; readonly detector: number } | undefined {
    return this.weights;
  }

  record(records: readonly NamingRecord[]): void {
    this.records.push(...records.filter((r) => r.c >= 1 && r.c < r.classes));
    if (this.records.length > MAX_NAMING_RECORDS) this.records.splice(0, this.records.length - MAX_NAMING_RECORDS);
  }

  /** Class index `c` is gone (LearnedClasses.forget): its records go, and the indices above it move down. */
  forgetClass(c: number): void {
    this.records = this.records
      .filter((r) => r.c !== c)
      .map((r) => ({ classes: r.classes > c ? r.classes - 1 : r.classes, c: r.c > c ? r.c - 1 : r.c, entries: r.entries.filter(([k]) => k !== c).map(([k, v, d]) => [k > c ? k - 1 : k, v, d] as const) }));
    this.fit();
  }

  /** Refits the two weights on the records held (none while there are too few). */
  fit(): void {
    if (this.records.length < MIN_NAMING_RECORDS) {
      this.weights = undefined;
      return;
    }
    // From the same start every time, so a restored model, refitted on the records it saved, names as the original did.
    let [a, b] = [1, 0];
    const n = this.records.length;
    for (let step = 0; step < NEWTON_STEPS; step++) {
      // Gradient and Hessian of the mean negative log-likelihood, plus the ridge. A class with
      // neither a vote nor a score has score 0: it weighs in the normaliser only.
      let ga = RIDGE * a;
      let gb = RIDGE * b;
      let haa = RIDGE;
      let hab = 0;
      let hbb = RIDGE;
      for (const r of this.records) {
        const scores = r.entries.map(([, v, d]) => a * v + b * d);
        const max = Math.max(0, ...scores);
        const weights = scores.map((z) => Math.exp(z - max));
        const sum = weights.reduce((s, w) => s + w, 0) + (r.classes - 1 - r.entries.length) * Math.exp(-max);
        let ev = 0;
        let ed = 0;
        let evv = 0;
        let evd = 0;
        let edd = 0;
        let own: readonly [number, number, number] = [r.c, 0, 0];
        r.entries.forEach((entry, i) => {
          const [k, v, d] = entry;
          const p = weights[i] / sum;
          ev += p * v;
          ed += p * d;
          evv += p * v * v;
          evd += p * v * d;
          edd += p * d * d;
          if (k === r.c) own = entry;
        });
        ga += (ev - own[1]) / n;
        gb += (ed - own[2]) / n;
        haa += (evv - ev * ev) / n;
        hab += (evd - ev * ed) / n;
        hbb += (edd - ed * ed) / n;
      }
      const det = haa * hbb - hab * hab;
      if (!(det > 0)) break;
      a -= (hbb * ga - hab * gb) / det;
      b -= (haa * gb - hab * ga) / det;
    }
    this.weights = { vote: a, detector: b };
  }

  /** Each class index's probability given that the region is one of the person's objects (index 0 is 0): the vote itself until fitted. */
  blend(vote: Float64Array, detector: ArrayLike<number>): Float64Array {
    if (!this.weights) return vote;
    const { vote: a, detector: b } = this.weights;
    const out = new Float64Array(vote.length);
    let max = -Infinity;
    for (let c = 1; c < out.length; c++) max = Math.max(max, (out[c] = a * vote[c] + b * (detector[c] ?? 0)));
    let sum = 0;
    for (let c = 1; c < out.length; c++) sum += out[c] = Math.exp(out[c] - max);
    for (let c = 1; c < out.length; c++) out[c] /= sum;
    return out;
  }

  toJSON(): NamingBlendState {
    return { records: this.records.map((r) => ({ classes: r.classes, c: r.c, entries: r.entries.map((e) => [...e] as [number, number, number]) })) };
  }

  static fromJSON(state: NamingBlendState | undefined): NamingBlend {
    const blend = new NamingBlend();
    if (state) blend.record(state.records);
    blend.fit();
    return blend;
  }
}

/** Four decimals: what a saved record needs, at a fraction of its length. */
function round(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}
