/**
 * One embedded photo's candidates for the learned classes, and a way to describe any mask on it, in
 * the engine's own process: what the CLI's `label` and the server's `learned` jobs hand to
 * proposeLearned.ts (the studio asks its engine worker for the same two things).
 */
import type { SegmentationEngine } from '../engine';
import { BULK_EVERYTHING_RULE, segmentEverything, type EverythingRule } from '../everything/segmentEverything';
import type { ConceptDetector } from '../text/detector';
import type { BinaryMask, RgbaImage } from '../types';
import type { RegionDescriptor } from './descriptors';
import { describeMasks, detectorsForDescriptors, photoContext } from './describePhoto';
import type { Candidate } from './proposeLearned';

export interface PhotoCandidates {
  /** Segment everything's regions, each with the detector's class and score where a detector found it. */
  readonly candidates: Candidate[];
  describe(masks: readonly BinaryMask[]): RegionDescriptor[];
}

export async function photoCandidates(
  engine: SegmentationEngine,
  imageKey: string,
  image: RgbaImage,
  detectors: readonly ConceptDetector[],
  // Proposing over a whole folder or project, nobody waits on one photo: the rule that finds the most.
  rule: EverythingRule = BULK_EVERYTHING_RULE,
): Promise<PhotoCandidates> {
  const found = await segmentEverything(engine, imageKey, { image, detectors, rule });
  const candidates: Candidate[] = found.proposals.map((p) => ({ mask: p.mask, quality: p.confidence, ...(p.label === undefined ? {} : { label: p.label, detectorScore: p.detectorScore }) }));
  const photo = photoContext(engine, imageKey, image, await detectorsForDescriptors(image, detectors));
  return { candidates, describe: (masks) => describeMasks(photo, masks) };
}

/**
 * Candidates whose detector class names one of the model's classes under another id (a project's
 * class "3" called "raccoon"): the detector's word is given as that id, so the detector prior of
 * proposeLearned.ts applies to it.
 */
export function labelsAsClassIds(candidates: readonly Candidate[], classNames: Readonly<Record<string, string>>): Candidate[] {
  const idOfName = new Map(Object.entries(classNames).map(([id, name]) => [name.trim().toLowerCase(), id]));
  return candidates.map((c) => {
    const id = c.label === undefined ? undefined : idOfName.get(c.label.toLowerCase());
    return id === undefined ? c : { ...c, label: id };
  });
}
