/**
 * Parts and near-duplicates, ranked by what the person decided about them (issue 37, item 2).
 *
 * Segment everything outlines an animal and also its head, a shelf of bottles and also each bottle;
 * every descriptor says "raccoon" about the head as much as about the raccoon. What tells them apart
 * is the region's relation to the other proposals of the same class on the photo, so each proposal
 * gets, besides its own (calibrated) probability, how it sits against the more probable ones: its
 * best IoU with one, the share of it inside one, the share of one inside it, and the probability of
 * the one it lies in. A logistic model over those reads them the way the person's decisions did:
 * a rejected head inside an accepted raccoon teaches that being inside a confident whole is bad, on
 * a class whose parts are objects of their own (a wheel of a car labelled "wheel") it learns the
 * opposite. Its answer is the probability shown: calibrated by construction, since it is fitted on
 * the outcomes of proposals shown before.
 *
 * A photo holds few objects of most classes: one raccoon, rarely three. So the ranker also reads how
 * many of its class the photo already has above it (the sum of the more probable ones' probabilities,
 * overlapping or not) and whether any is above it: a second, separate "raccoon" on a photo that has a
 * sure one is the person's usual rejection, while on a class that comes in crowds (bottles on a shelf)
 * the decisions teach the opposite.
 *
 * Boxes alone cannot tell which of two nested regions is the object: the raccoon inside the raccoon
 * with its sofa, or the raccoon's head inside the raccoon, look the same from their boxes. So the
 * ranker also reads each proposal's `ring` descriptor (ringDescriptor.ts): whether what lies just
 * outside it looks like what lies inside (a part continues past its edge), and whether its border
 * looks like its middle (a region with surroundings has them along its border); and the same of the
 * more probable proposal it lies in or holds, since which of two nested regions is the object depends
 * on what the other one is. How much those say is learned from the same decisions, for every class at
 * once: five numbers, not per class, since a session's first photos give too few decisions to weigh
 * them class by class.
 *
 * A part or a region spilling over its neighbours is often a mask SAM itself was unsure of, whatever
 * class the classifier reads in it. So the ranker also reads segment everything's confidence in the
 * mask (SAM's predicted IoU × the mask's stability), where one was measured: how far that says "this
 * is a whole object" is learned from the same decisions, as the other relations are. A mask without
 * one (a text detection's) reads as the mean of the photo's measured ones rather than as a poor mask;
 * an outcome saved before the quality was read, and a photo where none was measured, read zero, which
 * moves no weight. Read as it is, not against the photo's mean: that calibrated better on every learn
 * set (docs/RESULTS.md, h37-quality).
 *
 * Before any decision it is the identity on the probability (the prior every fit is pulled to), so a
 * new session ranks as the classifier does.
 */
import { boxIoU, type CornerBox } from '../text/detector';
import { fitLogistic, logit, sigmoid } from './calibration';
import { RING_LENGTH } from './ringDescriptor';
import { insideShare } from './suppress';

export interface RankedProposal {
  readonly box: CornerBox;
  readonly classId: string;
  /** Calibrated, from the classifier (or a detector's own calibrated score). */
  readonly probability: number;
  /** Its `ring` descriptor (ringDescriptor.ts); absent from descriptors made before it, read as zeros. */
  readonly ring?: readonly number[];
  /** Segment everything's confidence in its mask (SAM's predicted IoU × stability), in [0, 1]; absent where none was measured. */
  readonly quality?: number;
}

/** The relation features of one proposal, the bias last. */
export type RelationFeatures = readonly number[];

const FEATURES = 11 + RING_LENGTH;
/** What rankers saved before the count features read: the same, less those two and the ring (the bias stays last). */
const FEATURES_BEFORE_COUNTS = 6;
/** What rankers saved before the ring features and the two read with them (the bias stays last). */
const FEATURES_BEFORE_RING = 8;
/** What rankers saved before the mask's quality was read (the bias stays last). */
const FEATURES_BEFORE_QUALITY = 10 + RING_LENGTH;
const SAVED_LENGTHS: readonly number[] = [FEATURES_BEFORE_COUNTS, FEATURES_BEFORE_RING, FEATURES_BEFORE_QUALITY];
/** The identity: logit(probability) with weight 1, no say for the relations, no offset. */
const PRIOR: readonly number[] = [1, ...new Array<number>(FEATURES - 1).fill(0)];

/** Pseudo-observations' weight pulling the weights towards the prior: a few decisions cannot swing it. */
const PRIOR_STRENGTH = 5;
const MAX_OUTCOMES = 3000;

/**
 * Per proposal, in the order given: [logit p, best IoU with a more probable same-class proposal,
 * largest share of it inside one, largest share of one inside it, the probability of the one it lies
 * most inside (times that share), the sum of the more probable ones' probabilities, 1 when there is
 * one, its three ring numbers (zeros when its descriptor predates them), how far it lies inside a
 * more probable one whose border is unlike its middle (its share inside × (1 − that one's third ring
 * number)), how far it holds a more probable one that continues past its edge (that one's share
 * inside it × its first ring number), the logit of its mask's quality (where unmeasured, the mean of
 * the photo's measured ones, or 0 when none is), 1].
 */
export function relationFeatures(proposals: readonly RankedProposal[]): RelationFeatures[] {
  const measured = proposals.filter((p) => p.quality !== undefined).map((p) => logit(p.quality!));
  const usualQuality = measured.reduce((s, v) => s + v, 0) / Math.max(1, measured.length);
  return proposals.map((p, i) => {
    let iou = 0;
    let inside = 0;
    let contains = 0;
    let container = 0;
    let above = 0;
    let anyAbove = 0;
    let inSurroundings = 0;
    let holdsPart = 0;
    proposals.forEach((q, j) => {
      if (j === i || q.classId !== p.classId) return;
      // Ties are broken by position, so two equal proposals do not both count as the other's part.
      if (q.probability < p.probability || (q.probability === p.probability && j > i)) return;
      above += q.probability;
      anyAbove = 1;
      iou = Math.max(iou, boxIoU(p.box, q.box));
      const share = insideShare(p.box, q.box);
      if (share > inside) inside = share;
      container = Math.max(container, share * q.probability);
      const held = insideShare(q.box, p.box);
      contains = Math.max(contains, held);
      // The ring of the more probable one says what kind of region it is: with surroundings along its
      // border (so this one, inside it, may be the whole), or a part continuing past its edge (so this
      // one, holding it, may be the whole).
      if (q.ring) {
        inSurroundings = Math.max(inSurroundings, share * (1 - q.ring[2]));
        holdsPart = Math.max(holdsPart, held * q.ring[0]);
      }
    });
    const ring = Array.from({ length: RING_LENGTH }, (_, k) => p.ring?.[k] ?? 0);
    const quality = p.quality === undefined ? usualQuality : logit(p.quality);
    return [logit(p.probability), iou, inside, contains, container, above, anyAbove, ...ring, inSurroundings, holdsPart, quality, 1];
  });
}

/** The same relation for a proposal whose own probability has become `probability` (the model learned since it was ranked). */
export function withOwnProbability(relation: RelationFeatures, probability: number): RelationFeatures {
  return [logit(probability), ...relation.slice(1)];
}

export interface OverlapRankerState {
  readonly weights: readonly number[];
  readonly outcomes: readonly { readonly x: RelationFeatures; readonly correct: boolean }[];
}

export class OverlapRanker {
  private weights: number[] = [...PRIOR];
  private outcomes: { x: RelationFeatures; correct: boolean }[] = [];

  /** The probability to show for each proposal, in the order given, and the relations it read. */
  rank(proposals: readonly RankedProposal[]): { probabilities: number[]; relations: RelationFeatures[] } {
    const relations = relationFeatures(proposals);
    return { probabilities: relations.map((x) => this.score(x)), relations };
  }

  score(x: RelationFeatures): number {
    return sigmoid(x.reduce((s, v, j) => s + v * this.weights[j], 0));
  }

  /**
   * What became of one photo's proposals (features as relationFeatures gave them, before this photo
   * was learned): right means kept as an object of that class, not a part or a second copy of one.
   */
  record(outcomes: readonly { x: RelationFeatures; correct: boolean }[]): void {
    this.outcomes.push(...outcomes.map((o) => ({ x: [...o.x], correct: o.correct })));
    if (this.outcomes.length > MAX_OUTCOMES) this.outcomes.splice(0, this.outcomes.length - MAX_OUTCOMES);
    this.weights = fitLogistic(this.outcomes, PRIOR, PRIOR_STRENGTH);
  }

  toJSON(): OverlapRankerState {
    return { weights: [...this.weights], outcomes: this.outcomes.map((o) => ({ x: [...o.x], correct: o.correct })) };
  }

  /** A saved ranker, one saved before the count, ring or quality features too: it answers as it did until it learns again. */
  static fromJSON(state: OverlapRankerState): OverlapRanker {
    if (state.weights.length !== FEATURES && !SAVED_LENGTHS.includes(state.weights.length)) {
      throw new Error(`overlap ranker has ${state.weights.length} weights, this engine reads ${FEATURES}`);
    }
    const ranker = new OverlapRanker();
    ranker.weights = withCurrentFeatures(state.weights, PRIOR);
    ranker.outcomes = state.outcomes.map((o) => ({ x: withCurrentFeatures(o.x), correct: o.correct }));
    return ranker;
  }
}

/**
 * A relation (or weight vector) saved before the count, ring or quality features, with them: the
 * prior's weights, and zeros in an old outcome, which then teaches the new weights nothing it did not
 * see. Current ones come back as copies.
 */
export function withCurrentFeatures(values: readonly number[], fill: readonly number[] = []): number[] {
  if (!SAVED_LENGTHS.includes(values.length)) return [...values];
  const added = Array.from({ length: FEATURES - values.length }, (_, i) => fill[values.length - 1 + i] ?? 0);
  return [...values.slice(0, -1), ...added, values[values.length - 1]];
}
