/**
 * Whole-object candidates from the detectors' boxes (issue 37): where a detector of any class frames
 * something no candidate fits, SAM is asked for that box again and every answer it gives (its three
 * masks, not only the one its own score prefers) is read for the one whose extent the box frames.
 *
 * Why: segment everything keeps SAM's preferred answer to a box, and on an animal no detector names
 * that is often its head or body, while a "desk" or "bear" box frames the whole raccoon. Without a
 * candidate of the whole, the learned classes can only propose the part; with it they rank whole and
 * part like any other candidates, by the person's labels (the `fit` descriptor reads how each sits on
 * the boxes).
 *
 * A lever measured with the learn eval (`--framed DIR`, framedCache.ts), not the product's: it lowers
 * the ceiling on raccoon, but the wrong candidates it adds cost as much AP as the wholes it finds
 * (docs/RESULTS.md, h37-whole), so segment everything's candidates stay as they are.
 */
import type { SegmentationEngine } from '../../src/engine/engine';
import { boxIoU, suppressOverlaps, type CornerBox, type Detection } from '../../src/engine/text/detector';
import { cornerToCenterBox } from '../../src/engine/text/pipeline';
import { maskBox } from '../../src/engine/learn/descriptors';
import type { Candidate } from '../../src/engine/learn/proposeLearned';

/** A mask answers a box, and a candidate already stands for it, when their boxes overlap this much (the match rule of the evals). */
export const FRAMES = 0.5;
/** Boxes of any class overlapping this much frame one object: the strongest asks (segment everything's box rule). */
const SAME_OBJECT = 0.7;

export interface FramedOptions {
  /** Weaker boxes are not asked (default: segment everything's interactive rule's floor). */
  readonly minScore: number;
}

/**
 * The boxes worth asking again: the strongest of each object, at least `minScore`, that no box in
 * `existing` fits.
 */
export function unframedBoxes(detections: readonly Detection[], existing: readonly CornerBox[], minScore: number): Detection[] {
  const strong = detections.filter((d) => d.score >= minScore).sort((a, b) => b.score - a.score);
  return suppressOverlaps(strong, (a, b) => boxIoU(a.box, b.box), SAME_OBJECT).filter((d) => !existing.some((box) => boxIoU(box, d.box) >= FRAMES));
}

/** The mask among SAM's answers whose box the prompt box fits best, when it fits at FRAMES. */
export function framedAnswer<T extends { readonly mask: Candidate['mask'] }>(answers: readonly T[], box: CornerBox): T | undefined {
  let best: T | undefined;
  let bestFit = FRAMES;
  for (const answer of answers) {
    const own = maskBox(answer.mask);
    const fit = own ? boxIoU(own, box) : 0;
    if (fit >= bestFit) [best, bestFit] = [answer, fit];
  }
  return best;
}

/** New candidates (detector class and score kept) for the boxes no candidate with a box in `existing` fits. */
export async function framedCandidates(
  engine: Pick<SegmentationEngine, 'predict'>,
  imageKey: string,
  detections: readonly Detection[],
  existing: readonly CornerBox[],
  options: FramedOptions,
): Promise<Candidate[]> {
  const found: Candidate[] = [];
  const taken = [...existing];
  for (const detection of unframedBoxes(detections, existing, options.minScore)) {
    if (taken.some((box) => boxIoU(box, detection.box) >= FRAMES)) continue;
    const { candidates } = await engine.predict(imageKey, { box: cornerToCenterBox(detection.box) }, { multimask: true, mirrorAverage: false });
    const answer = framedAnswer(candidates, detection.box);
    if (!answer) continue;
    found.push({ mask: answer.mask, label: detection.label, detectorScore: detection.score });
    taken.push(maskBox(answer.mask)!);
  }
  return found;
}
