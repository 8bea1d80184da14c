/**
 * "Label all like my labels" on one photo, the same in the studio and the CLI: class-agnostic
 * candidates (segment everything, and text detections of the learned classes a detector names) are
 * described together, each gets the most probable learned class, and what is probable enough is
 * proposed once per object (suppress.ts). A detector's own word for one of the person's classes
 * competes with the learned one, each under its own calibration (the learn eval's detector prior).
 * The probability shown is the overlap ranker's (overlapRanker.ts): a part or second copy of a more
 * probable proposal of its class is ranked as the person's decisions on such ones went.
 */
import type { BinaryMask } from '../types';
import { maskIoU } from '../iou';
import { boxIoU, type CornerBox } from '../text/detector';
import { maskBox, type RegionDescriptor } from './descriptors';
import { LEARNED_SOURCE, type LearnedClasses } from './learnedClasses';
import type { RelationFeatures } from './overlapRanker';
import { suppressSameClassOverlaps, type ClassedProposal } from './suppress';

/** Proposals under this probability are not shown (the learn eval's `--show` default). */
export const SHOW_FROM = 0.3;
/**
 * Candidates from this probability take part in the suppression and the ranking (the learn eval's
 * floor): a whole the classifier is unsure of still tells the ranker that a part lies inside it.
 */
export const RANK_FROM = 0.01;
/** The calibration source of proposals made on a detector's word. */
export const DETECTOR_SOURCE = 'detector';

/** A region that might be an object: its mask and, when a detector found it, the detector's class and score. */
export interface Candidate {
  readonly mask: BinaryMask;
  readonly label?: string;
  readonly detectorScore?: number;
  /** Segment everything's confidence in the mask (SAM's predicted IoU × stability), where it made the region: the overlap ranker reads it. */
  readonly quality?: number;
}

export interface LearnedProposal {
  readonly mask: BinaryMask;
  readonly box: CornerBox;
  readonly classId: string;
  /** Calibrated. */
  readonly probability: number;
  /** Before calibration: what a decision on it is recorded with (LearnedClasses.recordDecision). */
  readonly raw: number;
  /** On a detector's word: the learned classes' raw probability for that class, recorded with the decision too (Decision.evidence). */
  readonly evidence?: number;
  /** The calibration the probability came from: the learned model's, or the detector's. */
  readonly source: string;
  /** Kept so the class and probability can be read again as the model learns. */
  readonly descriptor: RegionDescriptor;
  /** How it sat against the photo's other proposals when ranked: what its outcome is recorded with (LearnedClasses.recordProposalOutcomes). */
  readonly relation: RelationFeatures;
}

/** The person's classes a detector names: text detection asks for these by name. */
export function detectorNamedClasses(model: Pick<LearnedClasses, 'classIds'>, detectorKnows: (name: string) => boolean): string[] {
  return model.classIds.filter(detectorKnows);
}

/**
 * The best guess for one described candidate, or undefined when nothing is probable enough: the
 * learned class, or the detector's class when it names one of `personClasses` (the classes the person
 * declared, taught yet or not) more probably. The detector's word is not retired once a class has a
 * few examples: over dozens of classes with a handful of examples each the learned head stays unsure
 * long after (COCO photos), while the detector's own calibration, fitted on the person's decisions on
 * its proposals, already says how far to trust it. That calibration also reads what the learned
 * classes say of the detector's class on the region (`evidence`): the detectors' scores alone rank
 * their proposals, and the person's labels are what can move a weakly scored true one above a
 * confidently scored wrong one.
 */
export function bestGuess(model: LearnedClasses, candidate: Pick<Candidate, 'label' | 'detectorScore'>, descriptor: RegionDescriptor, personClasses: readonly string[] = model.classIds): Omit<LearnedProposal, 'mask' | 'box' | 'descriptor' | 'relation'> | undefined {
  const classified = model.classify(descriptor);
  const learned = classified[0];
  let best: Omit<LearnedProposal, 'mask' | 'box' | 'descriptor' | 'relation'> | undefined = learned && { classId: learned.classId, probability: learned.probability, raw: learned.raw, source: LEARNED_SOURCE };
  const { label, detectorScore } = candidate;
  if (label !== undefined && detectorScore !== undefined && personClasses.includes(label)) {
    const evidence = classified.find((c) => c.classId === label)?.raw;
    const probability = model.calibrated(DETECTOR_SOURCE, detectorScore, evidence);
    if (!best || probability > best.probability) best = { classId: label, probability, raw: detectorScore, ...(evidence === undefined ? {} : { evidence }), source: DETECTOR_SOURCE };
  }
  return best;
}

/** An object of a class already on the photo (the person's, or accepted): a proposal repeating it or a part of it is not made. */
export interface ExistingObject {
  readonly classId: string;
  readonly box: CornerBox;
}

/** A region as the ranking reads it: its box, and the detector's class and score where a detector found it (the learn eval caches boxes, not masks). */
export type BoxedCandidate = Pick<Candidate, 'label' | 'detectorScore' | 'quality'> & { readonly box: CornerBox };

/** A candidate worth proposing: which one (its index among those given), with its class, probabilities and relation. */
export type RankedCandidate = Omit<LearnedProposal, 'mask' | 'descriptor'> & {
  readonly index: number;
  /** What decides whether and where it is shown (LearnedClasses.rankProposals); `probability` is what is displayed. */
  readonly rankingProbability: number;
};

/**
 * The candidates worth proposing, most probable first, in the order the learn eval measured:
 * classified, one per object and class, none repeating an `existing` object of its class (the
 * same-class rule of suppress.ts, the existing objects ranking above every proposal), ranked against
 * each other by the overlap ranker, and shown from `showFrom` of the ranked probability. A detector's
 * word competes for any of `personClasses` (bestGuess).
 */
export function rankCandidates(
  model: LearnedClasses,
  candidates: readonly BoxedCandidate[],
  descriptors: readonly RegionDescriptor[],
  showFrom = SHOW_FROM,
  existing: readonly ExistingObject[] = [],
  personClasses: readonly string[] = model.classIds,
): RankedCandidate[] {
  if (descriptors.length !== candidates.length) throw new Error(`${candidates.length} candidates but ${descriptors.length} descriptors`);
  type Guess = Omit<RankedCandidate, 'relation' | 'rankingProbability'> & { readonly ring?: readonly number[]; readonly quality?: number };
  const guesses: Guess[] = [];
  candidates.forEach((candidate, index) => {
    const guess = bestGuess(model, candidate, descriptors[index], personClasses);
    // The ring and the mask's quality travel to the ranker only: they tell a part or a region with surroundings from a whole (overlapRanker.ts).
    if (guess && guess.probability >= RANK_FROM) guesses.push({ ...guess, index, box: candidate.box, ring: descriptors[index].ring, ...(candidate.quality === undefined ? {} : { quality: candidate.quality }) });
  });
  const standing = existing.map((e) => ({ ...e, probability: Infinity }));
  const proposals = new Set<ClassedProposal>(guesses);
  const onPhoto = new Set<ClassedProposal>(standing);
  const kept = suppressSameClassOverlaps<ClassedProposal>([...standing, ...guesses], (k) => onPhoto.has(k)).filter((k): k is Guess => proposals.has(k));
  const ranked = model.rankProposals(kept);
  return kept
    .map(({ ring: _ring, quality: _quality, ...guess }, i): RankedCandidate => ({ ...guess, ...ranked[i] }))
    .filter((p) => p.rankingProbability >= showFrom)
    .sort((a, b) => b.rankingProbability - a.rankingProbability);
}

/** rankCandidates over masks (an empty mask is no candidate), each proposal with its mask and descriptor. */
export function classifyCandidates(
  model: LearnedClasses,
  candidates: readonly Candidate[],
  descriptors: readonly RegionDescriptor[],
  showFrom = SHOW_FROM,
  existing: readonly ExistingObject[] = [],
  personClasses: readonly string[] = model.classIds,
): LearnedProposal[] {
  if (descriptors.length !== candidates.length) throw new Error(`${candidates.length} candidates but ${descriptors.length} descriptors`);
  const boxed = candidates.flatMap((candidate, i) => {
    const box = maskBox(candidate.mask);
    return box ? [{ candidate, box, descriptor: descriptors[i] }] : [];
  });
  const ranked = rankCandidates(model, boxed.map((b) => ({ ...b.candidate, box: b.box })), boxed.map((b) => b.descriptor), showFrom, existing, personClasses);
  return ranked.map(({ index, rankingProbability: _decided, ...proposal }) => ({ ...proposal, mask: boxed[index].candidate.mask, descriptor: boxed[index].descriptor }));
}

/** An object the person made on a photo: its mask, or its box when they drew a box. */
export interface LabelledRegion {
  readonly classId: string;
  readonly mask?: BinaryMask;
  readonly box?: CornerBox;
}

/** A candidate this much like a person's object is another example of its class (the eval's match rule). */
export const SAME_OBJECT_IOU = 0.5;
/**
 * A candidate is the object a person boxed only when this share of its mask lies inside their box: box
 * IoU alone calls a whole-photo region the animal that fills most of the photo, and a model taught so
 * proposes whole photos.
 */
export const INSIDE_DRAWN_BOX = 0.8;

/**
 * What a photo the person labelled teaches beyond their own objects: the candidates found there that
 * match one of their objects are more examples of its class; every other candidate is background,
 * since the person labelled what they wanted on that photo (parts of an object too: they are not the
 * object, and a part proposed as the whole is a wrong proposal; so is a region reaching far outside a box
 * they drew, such as the whole photo around it). One class id (or null) per candidate.
 */
export function lessonsOfLabelledPhoto(candidates: readonly Candidate[], labelled: readonly LabelledRegion[]): (string | null)[] {
  return candidates.map((candidate) => {
    const box = maskBox(candidate.mask);
    let best: { classId: string; iou: number } | undefined;
    for (const region of labelled) {
      const iou = region.mask ? maskIoU(region.mask, candidate.mask) : region.box && box && maskShareInside(candidate.mask, region.box) >= INSIDE_DRAWN_BOX ? boxIoU(region.box, box) : 0;
      if (iou >= SAME_OBJECT_IOU && (!best || iou > best.iou)) best = { classId: region.classId, iou };
    }
    return best?.classId ?? null;
  });
}

/** The share of the mask's pixels inside the box. */
export function maskShareInside(mask: BinaryMask, box: CornerBox): number {
  let inside = 0;
  let total = 0;
  for (let y = 0; y < mask.height; y++) {
    const row = y * mask.width;
    const rowInside = y >= box.y0 && y < box.y1;
    for (let x = 0; x < mask.width; x++) {
      if (!mask.data[row + x]) continue;
      total++;
      if (rowInside && x >= box.x0 && x < box.x1) inside++;
    }
  }
  return total ? inside / total : 0;
}

/** Where one photo's candidates and descriptors come from (the studio's engine worker, the CLI's engine in process). */
export interface ProposalPorts {
  candidates(textClasses: readonly string[]): Promise<Candidate[]>;
  describe(masks: readonly BinaryMask[]): Promise<RegionDescriptor[]>;
}

/** One photo's proposals of every learned class; none before the model knows a class. */
export async function proposeLearned(
  model: LearnedClasses,
  ports: ProposalPorts,
  options: { detectorKnows: (name: string) => boolean; showFrom?: number },
): Promise<LearnedProposal[]> {
  if (model.classIds.length === 0) return [];
  const candidates = await ports.candidates(detectorNamedClasses(model, options.detectorKnows));
  if (candidates.length === 0) return [];
  const descriptors = await ports.describe(candidates.map((c) => c.mask));
  return classifyCandidates(model, candidates, descriptors, options.showFrom);
}
