/**
 * A few-shot way to name a region's class (issue 37): each of the person's classes is the mean of its
 * examples' normalised descriptors (its prototype), and a region is named by the prototype it points
 * most nearly along (cosine), or by a vote of its nearest examples.
 *
 * Why beside the logistic model (learnedClasses.ts): over dozens of classes with a handful of examples
 * each, a logistic row per class is fitted on almost nothing and the many background examples pull
 * every row, while a class mean needs no fitting and no setting per dataset. It names a class only; whether a
 * region is an object of the person's classes at all stays the logistic model's (it sees the negatives).
 *
 * Normalised so that no descriptor kind outweighs the others by its length: every feature is
 * standardised over the examples, then each kind's block is scaled to unit length and the whole to
 * unit length again.
 */
import { type DescriptorKind, type RegionDescriptor } from './descriptors';
import { standardisation, type Standardisation } from './standardisation';

/** Where one descriptor kind's numbers sit in the feature vector. */
export interface FeatureBlock {
  readonly start: number;
  readonly length: number;
}

/** The blocks of `featureVector(descriptor, kinds)`, in order. */
export function featureBlocks(descriptor: RegionDescriptor, kinds: readonly DescriptorKind[]): FeatureBlock[] {
  let start = 0;
  return kinds.map((k) => {
    const length = descriptor[k]?.length ?? 0;
    const block = { start, length };
    start += length;
    return block;
  });
}

/** How sharply cosine similarity becomes probability: a similarity 0.1 higher is e (2.7) times as likely. */
export const PROTOTYPE_TEMPERATURE = 10;
/** Examples that vote in `nearestVote`. */
export const NEIGHBOURS = 5;

export interface LabelledVector {
  readonly x: ArrayLike<number>;
  /** Class index; 0 is background, which is never named. */
  readonly c: number;
}

export class PrototypeHead {
  private mean: Float64Array = new Float64Array(0);
  private scale: Float64Array = new Float64Array(0);
  private classCount = 0;
  private positives: { v: Float64Array; c: number }[] = [];
  /** The class means, derived from `positives` at their first use: the product's `nearest` head never reads them. */
  private prototypes: (Float64Array | undefined)[] | undefined;

  constructor(private readonly blocks: readonly FeatureBlock[]) {}

  /**
   * Takes every example held (background examples shape the standardisation only). `standardised`: the
   * examples' per-feature mean and 1/sd when the caller has them already (the logistic model computes
   * them over the same examples every step).
   */
  fit(examples: readonly LabelledVector[], classCount: number, standardised?: Standardisation): void {
    ({ mean: this.mean, scale: this.scale } = standardised ?? standardisation(examples, this.blocks.reduce((s, b) => s + b.length, 0)));
    this.classCount = classCount;
    this.prototypes = undefined;
    this.positives = [];
    for (const e of examples) if (e.c > 0) this.positives.push({ v: this.normalised(e.x), c: e.c });
  }

  /** The probability of each class index given that the region is one of the person's objects (index 0 is 0). */
  classProbabilities(x: ArrayLike<number>): Float64Array {
    const v = this.normalised(x);
    const prototypes = (this.prototypes ??= this.classMeans());
    const out = new Float64Array(this.classCount);
    let max = -Infinity;
    prototypes.forEach((p, c) => {
      if (c > 0 && p) max = Math.max(max, dot(p, v));
    });
    if (max === -Infinity) return out;
    let sum = 0;
    prototypes.forEach((p, c) => {
      if (c > 0 && p) sum += out[c] = Math.exp(PROTOTYPE_TEMPERATURE * (dot(p, v) - max));
    });
    for (let c = 0; c < out.length; c++) out[c] /= sum;
    return out;
  }

  /**
   * The probability of each class index given that the region is one of the person's objects, by the
   * `neighbours` nearest positive examples: each votes for its class with weight exp(temperature ×
   * similarity), so a much nearer example outvotes farther ones. Index 0 is 0; all 0 before any example.
   */
  nearestProbabilities(x: ArrayLike<number>, neighbours = NEIGHBOURS): Float64Array {
    const v = this.normalised(x);
    const out = new Float64Array(this.classCount);
    const nearest = this.positives
      .map((p) => ({ c: p.c, similarity: dot(p.v, v) }))
      .sort((a, b) => b.similarity - a.similarity)
      .slice(0, neighbours);
    if (nearest.length === 0) return out;
    let sum = 0;
    for (const n of nearest) {
      const w = Math.exp(PROTOTYPE_TEMPERATURE * (n.similarity - nearest[0].similarity));
      out[n.c] += w;
      sum += w;
    }
    for (let c = 0; c < out.length; c++) out[c] /= sum;
    return out;
  }

  private classMeans(): (Float64Array | undefined)[] {
    const sums: (Float64Array | undefined)[] = new Array(this.classCount).fill(undefined);
    for (const p of this.positives) {
      const sum = (sums[p.c] ??= new Float64Array(this.mean.length));
      for (let j = 0; j < sum.length; j++) sum[j] += p.v[j];
    }
    return sums.map((s) => (s ? unitLength(s) : undefined));
  }

  private normalised(x: ArrayLike<number>): Float64Array {
    const v = new Float64Array(this.mean.length);
    for (let j = 0; j < v.length; j++) v[j] = (x[j] - this.mean[j]) * this.scale[j];
    for (const b of this.blocks) {
      let norm = 0;
      for (let j = b.start; j < b.start + b.length; j++) norm += v[j] * v[j];
      norm = Math.sqrt(norm);
      if (norm > 0) for (let j = b.start; j < b.start + b.length; j++) v[j] /= norm;
    }
    return unitLength(v);
  }
}

/** A head over these kinds, its blocks read from one descriptor. */
export function prototypeHeadFor(descriptor: RegionDescriptor, kinds: readonly DescriptorKind[]): PrototypeHead {
  return new PrototypeHead(featureBlocks(descriptor, kinds));
}

function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let j = 0; j < a.length; j++) s += a[j] * b[j];
  return s;
}

function unitLength(v: Float64Array): Float64Array {
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let j = 0; j < v.length; j++) v[j] /= norm;
  return v;
}
