/**
 * Every instance of the learned classes on one photo (issue 37 item 2, as the server's `learned`
 * jobs run it, issue 38 item 1): segment everything's proposals, each classified by the learned
 * model, together with what the detectors find for learned classes they know by name; a proposal
 * that is a part or a repeat of a more probable one of its class is left out (suppress.ts).
 *
 * The detectors' finds are put on the learned model's scale through its own calibration of
 * detector proposals (`DETECTOR_SOURCE`), as the learn eval does, so the two kinds rank together.
 */
import type { SegmentationEngine } from '../engine';
import { segmentEverything } from '../everything/segmentEverything';
import type { ConceptDetector, CornerBox } from '../text/detector';
import type { TextPipeline } from '../text/pipeline';
import type { BinaryMask, RgbaImage } from '../types';
import { maskBox } from './descriptors';
import { describeMasks, detectionsForDescriptors, photoContext } from './describePhoto';
import type { LearnedClasses } from './learnedClasses';
import { suppressSameClassOverlaps } from './suppress';

/** The calibration source of the detectors' own finds of a learned class. */
export const DETECTOR_SOURCE = 'detector';
/** Below this (calibrated) probability a region is not proposed: what the learn eval shows a reviewer. */
export const LEARNED_MIN_PROBABILITY = 0.3;

export interface LearnedProposal {
  readonly classId: string;
  /** Calibrated, in [0, 1]. */
  readonly probability: number;
  readonly source: 'learned' | 'detector';
  readonly mask: BinaryMask;
  readonly area: number;
  readonly box: CornerBox;
}

export interface ProposeLearnedInput {
  readonly engine: SegmentationEngine;
  /** The photo, and the key of its embedding (embedded by the caller). */
  readonly image: RgbaImage;
  readonly imageKey: string;
  readonly detectors: readonly ConceptDetector[];
  /** Text prompts of the detectors (its `run`): a learned class a detector names is also asked for by name. */
  readonly text?: Pick<TextPipeline, 'run'>;
  readonly model: LearnedClasses;
  /** The words to ask the detectors for, by learned class id (a class left out is not asked for). */
  readonly classNames?: Readonly<Record<string, string>>;
  readonly minProbability?: number;
}

/** Best first. */
export async function proposeLearned(input: ProposeLearnedInput): Promise<LearnedProposal[]> {
  const { engine, image, imageKey, detectors, model } = input;
  const minProbability = input.minProbability ?? LEARNED_MIN_PROBABILITY;
  const candidates: LearnedProposal[] = [];

  const everything = await segmentEverything(engine, imageKey, { image, detectors });
  const detections = await detectionsForDescriptors(image, detectors);
  const descriptors = describeMasks(photoContext(engine, imageKey, image, detections), everything.proposals.map((p) => p.mask));
  everything.proposals.forEach((proposal, i) => {
    const best = model.classify(descriptors[i])[0];
    if (best && best.probability >= minProbability) {
      candidates.push({ classId: best.classId, probability: best.probability, source: 'learned', mask: proposal.mask, area: proposal.area, box: maskBox(proposal.mask) ?? proposal.box });
    }
  });

  const named = Object.entries(input.classNames ?? {}).filter(([classId, name]) => model.classIds.includes(classId) && name.trim() !== '');
  if (input.text && named.length) {
    const { results } = await input.text.run(image, named.map(([, name]) => name), imageKey);
    results.forEach((result, i) => {
      const classId = named[i][0];
      for (const found of result.instances) {
        const probability = model.calibrated(DETECTOR_SOURCE, found.confidence);
        if (probability >= minProbability) candidates.push({ classId, probability, source: 'detector', mask: found.mask, area: found.area, box: maskBox(found.mask) ?? found.box });
      }
    });
  }
  return suppressSameClassOverlaps(candidates);
}
