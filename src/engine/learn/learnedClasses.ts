/**
 * Learned classes (issue 37, items 1, 3 and 6): a per-session classifier of the person's own classes,
 * taught by every object they make, accept or re-class (a positive of its class) and every proposal
 * they reject (a negative: the background class).
 *
 * The model is multinomial logistic regression over region descriptors (descriptors.ts), background
 * being class 0. Each learning step keeps the examples (vectors, never photos), re-standardises the
 * features and runs a bounded number of mini-batch Adam steps warm-started from the current weights,
 * so a step's cost does not grow with the session. Classes are balanced in the loss (background
 * outnumbers every class by far); the probabilities are then re-mapped on the person's decisions
 * (calibration.ts), one map per source of proposals.
 *
 * Small and pure: it lives beside the engine rather than in its worker, so the studio, the server's
 * jobs and the CLI each hold one as plain data (toJSON / fromJSON) and descriptors are the only thing
 * the worker computes (EngineApi.describeRegions).
 */
import {
  applyPlatt,
  fitPlatt,
  IDENTITY_MAP,
  type Decision,
  type PlattMap,
} from './calibration';
import { DEFAULT_DESCRIPTOR_KINDS, DETECTOR_CONCEPTS, featureVector, type DescriptorKind, type RegionDescriptor } from './descriptors';
import { NamingBlend, namingRecord, type NamingBlendState } from './namingBlend';
import { OverlapRanker, withCurrentFeatures, withOwnProbability, type OverlapRankerState, type RankedProposal, type RelationFeatures } from './overlapRanker';
import { featureBlocks, PrototypeHead, type FeatureBlock } from './prototypeHead';
import { standardisation } from './standardisation';
import { halvesOf, packExamples, unpackExamples, valuesOf, type PackedExamples } from './packedExamples';
import { DEFAULT_DISPLAY_CALIBRATION, DEFAULT_SHOWN_CALIBRATION, ShownCalibration, type ShownCalibrationMethod, type ShownCalibrationState } from './shownCalibration';

export const LEARNED_CLASSES_VERSION = 1;
/** The calibration source of the learned model's own probabilities. */
export const LEARNED_SOURCE = 'learned';

export interface LearnedClassesOptions {
  /** Which descriptor kinds the model reads (default DEFAULT_DESCRIPTOR_KINDS). */
  readonly kinds?: readonly DescriptorKind[];
  /** L2 penalty on the weights. */
  readonly l2?: number;
  readonly learningRate?: number;
  /** Mini-batch size and how much arithmetic one step may spend (batches × batch × features × classes). */
  readonly batchSize?: number;
  readonly stepWork?: number;
  /** Background examples kept at most (the oldest go first) and positives kept per class. */
  readonly maxBackground?: number;
  readonly maxPerClass?: number;
  /** Decisions kept for calibration (the newest). */
  readonly maxDecisions?: number;
  /** The map of the shown probability (shownCalibration.ts); default its own. */
  readonly shownCalibration?: ShownCalibrationMethod;
  /** The map of the displayed probability, after the shown one (ShownCalibration.displayed); default its own. */
  readonly displayCalibration?: ShownCalibrationMethod;
  /** How a region's class is named (LearnedHead); default DEFAULT_LEARNED_HEAD. */
  readonly head?: LearnedHead;
}

/**
 * How the learned model names a region's class:
 * - `logistic`: the multinomial logistic model alone (a row of weights per class);
 * - `nearest`: the logistic model says how probably the region is one of the person's objects (1 − its
 *   background probability), and the nearest examples of the person's classes say which
 *   (prototypeHead.ts). With one class the two are the same.
 * - `blend`: as `nearest`, but which class is the nearest examples' vote and the detectors' score for
 *   each class around the region, weighed as the person's labelled objects say (namingBlend.ts).
 */
export type LearnedHead = 'logistic' | 'nearest' | 'blend';
export const LEARNED_HEADS: readonly LearnedHead[] = ['logistic', 'nearest', 'blend'];
export const DEFAULT_LEARNED_HEAD: LearnedHead = 'blend';

const DEFAULTS = {
  l2: 0.1,
  learningRate: 0.05,
  batchSize: 128,
  stepWork: 2.5e7,
  maxBackground: 3000,
  maxPerClass: 600,
  maxDecisions: 2000,
} as const;

export interface ClassProbability {
  readonly classId: string;
  /** Calibrated. */
  readonly probability: number;
  /** Before calibration: what a decision on it is recorded with. */
  readonly raw: number;
}

export interface LearnedClassesState {
  readonly version: number;
  readonly kinds: readonly DescriptorKind[];
  readonly classes: readonly string[];
  /** Feature vectors with their class index (0 = background), as models saved before `packedExamples` hold them; written empty. */
  readonly examples: readonly { readonly x: readonly number[]; readonly c: number }[];
  /** The examples in half precision (packedExamples.ts): what this engine writes. */
  readonly packedExamples?: PackedExamples;
  readonly weights: readonly (readonly number[])[];
  readonly mean: readonly number[];
  readonly scale: readonly number[];
  readonly decisions: Readonly<Record<string, readonly Decision[]>>;
  readonly steps: number;
  /** How it learns (LearnedClassesOptions without `kinds`): a restored model learns as it did. */
  readonly settings: Required<Omit<LearnedClassesOptions, 'kinds' | 'shownCalibration' | 'displayCalibration' | 'head'>>;
  /** The optimiser's moments and the sampler's state: a restored model goes on learning exactly as the original. */
  readonly optimiser: { readonly m: readonly (readonly number[])[]; readonly v: readonly (readonly number[])[]; readonly t: number; readonly seed: number };
  /** The overlap ranker (absent in models saved before it existed: they start it afresh). */
  readonly ranker?: OverlapRankerState;
  /** The shown probability's calibration (absent in models saved before it existed: they start it afresh). */
  readonly shown?: ShownCalibrationState;
  /** What the `blend` head's weights are fitted on (absent in models saved before it existed: they start it afresh). */
  readonly naming?: NamingBlendState;
}

/** A proposal's probabilities after the overlap ranker: the one displayed, and the one that decides whether and where it is shown. */
export interface RankedProbability {
  /** Displayed (and what "accept all" is advised on). */
  readonly probability: number;
  /** Decides: shown from `showFrom`, most probable first (ShownCalibration.probability). */
  readonly rankingProbability: number;
  readonly relation: RelationFeatures;
}

/** `key`: what the example was taught from (the studio's object id), so changing or undoing that lesson replaces or removes it. */
type Example = { x: Float64Array; halves: Uint16Array; c: number; key?: string };

export class LearnedClasses {
  private readonly kinds: readonly DescriptorKind[];
  private readonly options: Required<Omit<LearnedClassesOptions, 'kinds' | 'shownCalibration' | 'displayCalibration' | 'head'>>;
  private readonly head: LearnedHead;
  /** The `nearest` head's examples, rebuilt with every learning step (derived from the examples: never saved). */
  private namer: PrototypeHead | undefined;
  /** Where each descriptor kind sits in the features: read from the first descriptor seen (a restored model's at its first use). */
  private blocks: FeatureBlock[] | undefined;
  /** Index 0 is background. */
  private classes: string[] = [''];
  private examples: Example[] = [];
  private weights: Float64Array[] = [];
  private mean = new Float64Array(0);
  private scale = new Float64Array(0);
  private decisions = new Map<string, Decision[]>();
  private calibrations = new Map<string, PlattMap>();
  private adam: { m: Float64Array[]; v: Float64Array[]; t: number } = { m: [], v: [], t: 0 };
  private steps = 0;
  private ranker = new OverlapRanker();
  private naming = new NamingBlend();
  private shown: ShownCalibration;
  private readonly rankerScore = (x: readonly number[]) => this.ranker.score(x);
  /** A small deterministic generator: the same decisions give the same model everywhere. */
  private seed = 0x9e3779b9;

  constructor(options: LearnedClassesOptions = {}) {
    this.kinds = options.kinds ?? DEFAULT_DESCRIPTOR_KINDS;
    this.shown = new ShownCalibration(options.shownCalibration, options.displayCalibration);
    this.head = options.head ?? DEFAULT_LEARNED_HEAD;
    this.options = {
      l2: options.l2 ?? DEFAULTS.l2,
      learningRate: options.learningRate ?? DEFAULTS.learningRate,
      batchSize: options.batchSize ?? DEFAULTS.batchSize,
      stepWork: options.stepWork ?? DEFAULTS.stepWork,
      maxBackground: options.maxBackground ?? DEFAULTS.maxBackground,
      maxPerClass: options.maxPerClass ?? DEFAULTS.maxPerClass,
      maxDecisions: options.maxDecisions ?? DEFAULTS.maxDecisions,
    };
  }

  /** The classes taught so far, in the order first taught. */
  get classIds(): string[] {
    return this.classes.slice(1);
  }

  /** Positive examples of a class held now. */
  examplesOf(classId: string): number {
    const c = this.classes.indexOf(classId);
    return c <= 0 ? 0 : this.examples.filter((e) => e.c === c).length;
  }

  /** One object of `classId` (made, accepted or re-classed): learns at once. */
  learn(example: { descriptor: RegionDescriptor; classId: string }): void {
    this.learnAll([example]);
  }

  /** A rejected proposal: a background example. */
  reject(descriptor: RegionDescriptor): void {
    this.learnAll([{ descriptor, classId: null }]);
  }

  /**
   * Several decisions (one photo's review) as one learning step; `classId: null` is background. An
   * example with a `key` takes the place of the one held under that key (the object re-classed, or
   * accepted and then rejected).
   */
  learnAll(examples: readonly { descriptor: RegionDescriptor; classId: string | null; key?: string }[]): void {
    this.dropKeyed(examples.flatMap((e) => (e.key === undefined ? [] : [e.key])));
    if (examples.length) this.blocks ??= featureBlocks(examples[0].descriptor, this.kinds);
    // Kept as stored (packedExamples.ts), so a restored model holds exactly what this one learned from.
    const taught = examples.map((e) => {
      const halves = halvesOf(featureVector(e.descriptor, this.kinds));
      return { ...e, halves, x: valuesOf(halves) };
    });
    this.recordNaming(taught);
    for (const { x, halves, ...e } of taught) {
      if (this.weights.length && x.length !== this.mean.length) throw new Error(`descriptor has ${x.length} features, the model ${this.mean.length}`);
      this.examples.push({ x, halves, c: e.classId === null ? 0 : this.classIndex(e.classId), ...(e.key === undefined ? {} : { key: e.key }) });
    }
    this.trim();
    this.train();
  }

  /** Takes back the lessons taught under `keys` (their objects undone or deleted), as one learning step; false when it held none of them. */
  unlearn(keys: readonly string[]): boolean {
    const before = this.examples.length;
    this.dropKeyed(keys);
    if (this.examples.length === before) return false;
    if (this.examples.length) this.train();
    return true;
  }

  private dropKeyed(keys: readonly string[]): void {
    if (keys.length === 0) return;
    const dropped = new Set(keys);
    this.examples = this.examples.filter((e) => e.key === undefined || !dropped.has(e.key));
  }

  /** Drops a class and every example of it (a class deleted, or taught by mistake). */
  forget(classId: string): void {
    const c = this.classes.indexOf(classId);
    if (c <= 0) return;
    this.examples = this.examples.filter((e) => e.c !== c).map((e) => ({ ...e, c: e.c > c ? e.c - 1 : e.c }));
    this.classes.splice(c, 1);
    this.naming.forgetClass(c);
    this.weights.splice(c, 1);
    this.adam.m.splice(c, 1);
    this.adam.v.splice(c, 1);
    this.namer = undefined;
    if (this.examples.length) this.train();
  }

  /** Every learned class with its calibrated probability for the region, most likely first. */
  classify(descriptor: RegionDescriptor): ClassProbability[] {
    if (this.classes.length < 2 || this.weights.length === 0) return [];
    const features = Float64Array.from(featureVector(descriptor, this.kinds));
    if (!this.blocks) {
      this.blocks = featureBlocks(descriptor, this.kinds);
      this.fitNamer();
    }
    const raw = this.named(features, this.probabilities(features));
    return this.classes
      .slice(1)
      .map((classId, k) => ({ classId, raw: raw[k + 1], probability: this.calibrated(LEARNED_SOURCE, raw[k + 1]) }))
      .sort((a, b) => b.probability - a.probability);
  }

  /**
   * A decision on a shown proposal, with the raw probability it was shown with (`ClassProbability.raw`)
   * and whether it was right; `source` names the calibration (default the learned model's; the studio
   * may record a detector's text-class proposals under their own).
   */
  recordDecision(decision: Decision, source = LEARNED_SOURCE): void {
    const list = this.decisions.get(source) ?? [];
    list.push(decision);
    if (list.length > this.options.maxDecisions) list.splice(0, list.length - this.options.maxDecisions);
    this.decisions.set(source, list);
    this.calibrations.delete(source);
  }

  /** A raw probability of `source` after calibration on the decisions recorded so far, with its second opinion (Decision.evidence) if any. */
  calibrated(source: string, raw: number, evidence?: number): number {
    let map = this.calibrations.get(source);
    if (!map) {
      const decided = this.decisions.get(source);
      map = decided && decided.length ? fitPlatt(decided) : IDENTITY_MAP;
      this.calibrations.set(source, map);
    }
    return applyPlatt(map, raw, evidence);
  }

  /**
   * One photo's classified proposals (their calibrated probabilities) → the probability to show for
   * each, in the order given, with the relation it was judged on: parts and second copies of a more
   * probable proposal of the same class are ranked as the person's decisions on such ones went, and
   * the ranker's score is then calibrated on the person's decisions on shown proposals (monotone: the
   * order stays the ranker's).
   */
  rankProposals(proposals: readonly RankedProposal[]): RankedProbability[] {
    const ranked = this.ranker.rank(proposals);
    return ranked.probabilities.map((score, i) => ({ ...this.shown.probabilities(score, proposals[i].classId), relation: ranked.relations[i] }));
  }

  /**
   * A waiting proposal's probability to show once the classifier's probability for it changed: ranked
   * against the same neighbours as when it was proposed (they may be decided or gone by now).
   */
  rankAgain(relation: RelationFeatures, probability: number, classId?: string): RankedProbability {
    const again = withOwnProbability(relation, probability);
    return { ...this.shown.probabilities(this.ranker.score(again), classId), relation: again };
  }

  /**
   * What became of a photo's ranked proposals: right means kept as an object of its class, not a part
   * or a second copy. Those `shown` (the default: the studio records decided proposals only) also
   * calibrate the shown probability (refitted on the ranker's scores once it has learned).
   */
  recordProposalOutcomes(outcomes: readonly { relation: RelationFeatures; correct: boolean; shown?: boolean; classId?: string }[]): void {
    // Scored before the ranker learns from them: the held-out score the shown calibration is fitted on.
    this.shown.record(
      outcomes
        .filter((o) => o.shown !== false)
        .map((o) => ({ x: o.relation, correct: o.correct, heldOutScore: this.ranker.score(o.relation), ...(o.classId === undefined ? {} : { classId: o.classId }) })),
    );
    this.ranker.record(outcomes.map((o) => ({ x: o.relation, correct: o.correct })));
    this.shown.refit(this.rankerScore);
  }

  /**
   * The decisions on shown proposals, each with the probability the model would show it now. Not what
   * "accept all" is advised on (acceptAll.ts, on the confidence shown when the person decided, as the
   * studio records it): re-scored by a ranker and a map fitted on these same decisions, they flatter.
   */
  shownDecisions(): { probability: number; correct: boolean }[] {
    return this.shown.decided(this.rankerScore);
  }

  toJSON(): LearnedClassesState {
    return {
      version: LEARNED_CLASSES_VERSION,
      kinds: [...this.kinds],
      classes: [...this.classes],
      examples: [],
      packedExamples: packExamples(this.examples, this.examples[0]?.halves.length ?? this.mean.length),
      weights: this.weights.map((w) => Array.from(w)),
      mean: Array.from(this.mean),
      scale: Array.from(this.scale),
      decisions: Object.fromEntries(this.decisions),
      steps: this.steps,
      settings: { ...this.options },
      optimiser: { m: this.adam.m.map((r) => Array.from(r)), v: this.adam.v.map((r) => Array.from(r)), t: this.adam.t, seed: this.seed },
      ranker: this.ranker.toJSON(),
      shown: this.shown.toJSON(),
      naming: this.naming.toJSON(),
    };
  }

  static fromJSON(state: LearnedClassesState, options: Omit<LearnedClassesOptions, 'kinds'> = {}): LearnedClasses {
    if (state.version !== LEARNED_CLASSES_VERSION) throw new Error(`learned classes version ${state.version}, this engine reads ${LEARNED_CLASSES_VERSION}`);
    const model = new LearnedClasses({ ...state.settings, ...options, kinds: state.kinds });
    model.classes = [...state.classes];
    // A model saved before the packed form: its examples are rounded as this engine keeps them.
    model.examples = state.packedExamples ? unpackExamples(state.packedExamples) : state.examples.map((e) => {
          const halves = halvesOf(e.x);
          return { x: valuesOf(halves), halves, c: e.c };
        });
    model.weights = state.weights.map((w) => Float64Array.from(w));
    model.mean = Float64Array.from(state.mean);
    model.scale = Float64Array.from(state.scale);
    model.decisions = new Map(Object.entries(state.decisions).map(([k, v]) => [k, [...v]]));
    model.steps = state.steps;
    model.adam = { m: state.optimiser.m.map((r) => Float64Array.from(r)), v: state.optimiser.v.map((r) => Float64Array.from(r)), t: state.optimiser.t };
    model.seed = state.optimiser.seed;
    if (state.ranker) model.ranker = OverlapRanker.fromJSON(state.ranker);
    model.naming = NamingBlend.fromJSON(state.naming);
    // Its decisions are kept with the ranker's features: a model saved before the count or ring features gets them as the ranker does.
    // The map is refitted from those decisions on every load, so a saved model takes this engine's map (or the caller's),
    // not the one it was saved with: a model saved before a better map gets it.
    if (state.shown) {
      const method = options.shownCalibration ?? DEFAULT_SHOWN_CALIBRATION;
      const displayMethod = options.displayCalibration ?? DEFAULT_DISPLAY_CALIBRATION;
      model.shown = ShownCalibration.fromJSON({ method, displayMethod, outcomes: state.shown.outcomes.map((o) => ({ ...o, x: withCurrentFeatures(o.x) })) }, model.rankerScore);
    }
    return model;
  }

  /** The logistic model's probabilities with the class named by the head: P(object) × P(class | object). */
  private named(features: Float64Array, logistic: Float64Array): Float64Array {
    if (this.head === 'logistic' || !this.namer) return logistic;
    const vote = this.namer.nearestProbabilities(features);
    const which = this.head === 'blend' ? this.naming.blend(vote, this.detectorScores(features)) : vote;
    const object = 1 - logistic[0];
    const out = new Float64Array(logistic.length);
    out[0] = logistic[0];
    for (let c = 1; c < out.length; c++) out[c] = object * (which[c] ?? 0);
    return out;
  }

  /**
   * Before a step learns them: how the nearest examples voted on the person's newly labelled objects of
   * classes already held, with the detectors' scores for each class, for the `blend` head to weigh
   * (out of sample: once learned, an object's nearest example is itself). Nothing to weigh with one class.
   */
  private recordNaming(examples: readonly { x: Float64Array; classId: string | null }[]): void {
    if (this.head !== 'blend' || !this.namer || this.classes.length < 3) return;
    const records = examples.flatMap((e) => {
      const c = e.classId === null ? -1 : this.classes.indexOf(e.classId);
      if (c < 1) return [];
      return [namingRecord(this.namer!.nearestProbabilities(e.x), this.detectorScores(e.x), c)];
    });
    this.naming.record(records);
  }

  /** Per class index, the detectors' score for the class's name around the region (the `detectors` features' column; 0 for a name no detector has). */
  private detectorScores(features: ArrayLike<number>): number[] {
    const block = this.blocks?.[this.kinds.indexOf('detectors')];
    return this.classes.map((classId, c) => {
      const column = c === 0 || !block ? -1 : DETECTOR_CONCEPTS.indexOf(classId);
      return column >= 0 && column < block!.length ? features[block!.start + column] : 0;
    });
  }

  private fitNamer(): void {
    if (this.head === 'logistic' || this.examples.length === 0 || !this.blocks) return;
    this.namer = new PrototypeHead(this.blocks);
    this.namer.fit(this.examples, this.classes.length, { mean: this.mean, scale: this.scale });
    if (this.head === 'blend') this.naming.fit();
  }

  private classIndex(classId: string): number {
    let c = this.classes.indexOf(classId);
    if (c < 0) {
      c = this.classes.push(classId) - 1;
      if (this.weights.length) this.addWeightRow();
    }
    return c;
  }

  private addWeightRow(): void {
    const length = this.mean.length + 1;
    this.weights.push(new Float64Array(length));
    this.adam.m.push(new Float64Array(length));
    this.adam.v.push(new Float64Array(length));
  }

  /** The oldest examples go once a class (or background) holds more than it may. */
  private trim(): void {
    const counts = new Map<number, number>();
    for (const e of this.examples) counts.set(e.c, (counts.get(e.c) ?? 0) + 1);
    const excess = new Map<number, number>();
    for (const [c, n] of counts) {
      const cap = c === 0 ? this.options.maxBackground : this.options.maxPerClass;
      if (n > cap) excess.set(c, n - cap);
    }
    if (excess.size === 0) return;
    this.examples = this.examples.filter((e) => {
      const left = excess.get(e.c) ?? 0;
      if (left <= 0) return true;
      excess.set(e.c, left - 1);
      return false;
    });
  }

  private random(): number {
    // mulberry32
    let t = (this.seed = (this.seed + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  private standardise(): void {
    ({ mean: this.mean, scale: this.scale } = standardisation(this.examples, this.examples[0].x.length));
    if (this.weights.length === 0) {
      this.weights = [];
      this.adam = { m: [], v: [], t: 0 };
      for (let c = 0; c < this.classes.length; c++) this.addWeightRow();
    }
  }

  private train(): void {
    if (this.examples.length === 0) return;
    this.standardise();
    const k = this.classes.length;
    const d = this.mean.length;
    const counts = new Float64Array(k);
    for (const e of this.examples) counts[e.c]++;
    const present = counts.filter((n) => n > 0).length;
    // Balanced: every class present weighs as much in the loss as the others together.
    const classWeight = Array.from(counts, (n) => (n ? this.examples.length / (present * n) : 0));
    const batch = Math.min(this.options.batchSize, this.examples.length);
    const batches = Math.max(4, Math.min(60, Math.round(this.options.stepWork / (batch * (d + 1) * k))));
    const z = new Float64Array(k);
    // Standardised once per step rather than once per draw: an example is drawn many times a step.
    const standardised = this.examples.map((e) => {
      const x = new Float64Array(d);
      for (let j = 0; j < d; j++) x[j] = (e.x[j] - this.mean[j]) * this.scale[j];
      return x;
    });
    const gradient = Array.from({ length: k }, () => new Float64Array(d + 1));
    const { learningRate, l2 } = this.options;
    for (let step = 0; step < batches; step++) {
      for (const g of gradient) g.fill(0);
      let totalWeight = 0;
      for (let i = 0; i < batch; i++) {
        const drawn = Math.floor(this.random() * this.examples.length);
        const e = this.examples[drawn];
        const x = standardised[drawn];
        this.logits(x, z);
        softmaxInPlace(z);
        const w = classWeight[e.c];
        totalWeight += w;
        for (let c = 0; c < k; c++) {
          const r = w * (z[c] - (c === e.c ? 1 : 0));
          if (r === 0) continue;
          const g = gradient[c];
          for (let j = 0; j < d; j++) g[j] += r * x[j];
          g[d] += r;
        }
      }
      const t = ++this.adam.t;
      for (let c = 0; c < k; c++) {
        const wRow = this.weights[c];
        const m = this.adam.m[c];
        const v = this.adam.v[c];
        const g = gradient[c];
        for (let j = 0; j <= d; j++) {
          const gj = g[j] / totalWeight + (j < d ? l2 * wRow[j] : 0);
          m[j] = 0.9 * m[j] + 0.1 * gj;
          v[j] = 0.999 * v[j] + 0.001 * gj * gj;
          wRow[j] -= (learningRate * (m[j] / (1 - 0.9 ** t))) / (Math.sqrt(v[j] / (1 - 0.999 ** t)) + 1e-8);
        }
      }
    }
    this.steps++;
    this.fitNamer();
  }

  private logits(x: Float64Array, out: Float64Array): void {
    const d = x.length;
    for (let c = 0; c < this.weights.length; c++) {
      const w = this.weights[c];
      let s = w[d];
      for (let j = 0; j < d; j++) s += w[j] * x[j];
      out[c] = s;
    }
  }

  private probabilities(features: Float64Array): Float64Array {
    if (features.length !== this.mean.length) throw new Error(`descriptor has ${features.length} features, the model ${this.mean.length}`);
    const x = new Float64Array(features.length);
    for (let j = 0; j < x.length; j++) x[j] = (features[j] - this.mean[j]) * this.scale[j];
    const z = new Float64Array(this.weights.length);
    this.logits(x, z);
    return softmaxInPlace(z);
  }
}

function softmaxInPlace(z: Float64Array): Float64Array {
  let max = -Infinity;
  for (const v of z) if (v > max) max = v;
  let sum = 0;
  for (let i = 0; i < z.length; i++) sum += z[i] = Math.exp(z[i] - max);
  for (let i = 0; i < z.length; i++) z[i] /= sum;
  return z;
}
