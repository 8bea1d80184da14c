/**
 * "Label all like my labels" (issue 37, item 2): every instance of every learned class on every open
 * image, as proposals to review. First the learner catches up with the person's latest decisions and
 * learns from the photos they labelled (their other regions are background: lessons.ts); then every
 * image, the current one first, gets the candidates the engine finds (segment everything, and text
 * detection of the learned classes a detector names) classified by the learned model
 * (engine/learn/proposeLearned.ts), none repeating or surrounding an accepted object of its class. What
 * lands goes through the studio's de-duplication too, so nothing rejected before is proposed again. Stop ends the run at
 * once: the engine's run on the image in progress stops, and that image gets nothing.
 */
import type { Annotation, ClassDef, ImageEntry } from '../../annotations/annotation';
import { proposedBy } from '../../annotations/review';
import { maskBox, type RegionDescriptor } from '../../engine/learn/descriptors';
import { classifyCandidates, lessonsOfLabelledPhoto, type Candidate, type LabelledRegion } from '../../engine/learn/proposeLearned';
import type { PolygonWithHoles } from '../../engine/types';
import { labellingOrder, type AddProposals, type LabelAllProgress } from '../inference/labelAll';
import type { StudioDocument } from '../state/model';
import { classNamed, labelledRegions, learnedClassName, pendingLessons } from './lessons';
import type { SessionLearner } from './sessionLearner';

/**
 * Label all's progress, its steps being the labelled photos learned from and then the images answered;
 * `classes`: the learned classes proposed; `segmented`: how far the engine's segment everything is on
 * the image in progress (the long part of a step), absent before its first answer.
 */
export type LabelLikeMineProgress = Omit<LabelAllProgress, 'prompts'> & { readonly classes: readonly string[]; readonly segmented?: { readonly decoded: number; readonly planned: number } };

/** A candidate with the outline it is drawn with. */
export type TracedCandidate = Candidate & { readonly polygons: readonly PolygonWithHoles[] };

export interface LabelLikeMinePorts {
  document(): Pick<StudioDocument, 'images' | 'activeImageId' | 'objects' | 'classes'>;
  /** The engine's candidates on an image; `textClasses`: learned classes a detector names, asked for by text too; `segmented`: the engine's progress on it. */
  candidates(image: ImageEntry, textClasses: readonly string[], signal: AbortSignal, segmented?: (decoded: number, planned: number) => void): Promise<TracedCandidate[]>;
  describe(imageId: string, masks: readonly Candidate['mask'][]): Promise<RegionDescriptor[]>;
  /** Whether a detector names this class. */
  detectorKnows(name: string): boolean;
  add: AddProposals;
  tolerance: number;
}

/** Why the command cannot run yet; undefined when it can (a class has examples, learned or about to be). */
export function labelLikeMineBlocked(learner: Pick<SessionLearner, 'taughtClasses'>, doc: Pick<StudioDocument, 'images' | 'objects' | 'classes'>): string | undefined {
  if (doc.images.length === 0) return 'Open images first.';
  const examples = learner.taughtClasses().length > 0 || pendingLessons(doc, new Map()).some((l) => l.classId !== null);
  if (!examples) return 'Label a few objects with a class first (make them, or accept proposals): Label all like my labels proposes what it learned from them.';
  return undefined;
}

function proposalObject(candidate: TracedCandidate, target: ClassDef, probability: number, tolerance: number): Omit<Annotation, 'color' | 'id'> {
  return {
    label: target.name,
    classId: target.id,
    confidence: probability,
    visible: true,
    polygons: candidate.polygons,
    mask: candidate.mask,
    outlineTolerance: tolerance,
    source: 'local',
    review: proposedBy('learned'),
  };
}

/**
 * The candidates found on an image that may be proposed there, each with its descriptor. A photo
 * learned from as labelled taught its other regions as background (lessons.ts): there only the
 * candidates matching one of the person's objects are kept, whatever the classifier makes of the
 * rest afterwards (a region taught as background can still score as a class it resembles).
 */
export function proposableCandidates(
  found: { candidates: TracedCandidate[]; descriptors: RegionDescriptor[] },
  labelled: readonly LabelledRegion[],
  learnedFromAsLabelled: boolean,
): { candidates: TracedCandidate[]; descriptors: RegionDescriptor[] } {
  if (!learnedFromAsLabelled) return found;
  const lessons = lessonsOfLabelledPhoto(found.candidates, labelled);
  const kept = lessons.flatMap((lesson, i) => (lesson === null ? [] : [i]));
  return { candidates: kept.map((i) => found.candidates[i]), descriptors: kept.map((i) => found.descriptors[i]) };
}

export async function labelLikeMine(learner: SessionLearner, ports: LabelLikeMinePorts, signal: AbortSignal, onProgress: (progress: LabelLikeMineProgress) => void): Promise<LabelLikeMineProgress> {
  // Catching up can describe several photos' objects: the line says so from the start, not only once the steps begin.
  onProgress({ classes: learner.taughtClasses(), done: 0, total: 0, added: 0, leftOut: [], working: 'learning your latest labels', stopped: false });
  await learner.learnPending();
  const doc = ports.document();
  const order = labellingOrder(doc.images, doc.activeImageId);
  const labelled = order.filter((image) => !learner.isMined(image.id) && labelledRegions(doc, image).length > 0);
  const classes = learner.taughtClasses();
  let progress: LabelLikeMineProgress = { classes, done: 0, total: labelled.length + order.length, added: 0, leftOut: [], working: null, stopped: false };
  const report = (change: Partial<LabelLikeMineProgress>) => onProgress((progress = { ...progress, ...change }));
  const textClasses = classes.filter((c) => ports.detectorKnows(c));
  const found = new Map<string, { candidates: TracedCandidate[]; descriptors: RegionDescriptor[] }>();
  /** The image's candidates; undefined when Stop ended the engine's run on it (the engine rejects a stopped call). */
  const candidatesOf = async (image: ImageEntry) => {
    let entry = found.get(image.id);
    if (!entry) {
      try {
        const candidates = await ports.candidates(image, textClasses, signal, (decoded, planned) => report({ segmented: { decoded, planned } }));
        entry = { candidates, descriptors: await ports.describe(image.id, candidates.map((c) => c.mask)) };
      } catch (error) {
        if (signal.aborted) return undefined;
        throw error;
      }
      found.set(image.id, entry);
    }
    return entry;
  };

  for (const image of labelled) {
    if (signal.aborted) break;
    report({ working: `learning from your labels on ${image.name}`, segmented: undefined });
    const onPhoto = await candidatesOf(image);
    if (!onPhoto) break;
    learner.teachLabelledPhoto(image, onPhoto.candidates, onPhoto.descriptors);
    report({ done: progress.done + 1 });
  }
  for (const image of order) {
    if (signal.aborted) break;
    report({ working: image.name, segmented: undefined });
    const onImage = await candidatesOf(image);
    if (!onImage || signal.aborted) break;
    const now = ports.document();
    const regions = labelledRegions(now, image);
    const { candidates, descriptors } = proposableCandidates(onImage, regions, learner.isMined(image.id));
    const existing = regions.flatMap((r) => {
      const box = r.box ?? (r.mask && maskBox(r.mask));
      return box ? [{ classId: r.classId, box }] : [];
    });
    const proposals = classifyCandidates(learner.classifier, candidates, descriptors, undefined, existing, now.classes.map(learnedClassName)).flatMap((proposal) => {
      const target = classNamed(now.classes, proposal.classId);
      const candidate = candidates.find((c) => c.mask === proposal.mask)!;
      return target ? [{ proposal, candidate, object: proposalObject(candidate, target, proposal.probability, ports.tolerance) }] : [];
    });
    const { added, reasons } = ports.add(image, proposals.map((p) => p.object), `label all like my labels on ${image.name}`);
    // The objects keep their masks: that is how the ones that landed are found again.
    const landed = ports.document().objects[image.id] ?? [];
    for (const p of proposals) {
      const object = landed.find((o) => o.mask === p.candidate.mask);
      if (object) learner.follow(image.id, object.id, p.proposal, p.candidate);
    }
    report({ done: progress.done + 1, added: progress.added + added, leftOut: [...progress.leftOut, ...reasons] });
  }
  report({ working: null, segmented: undefined, stopped: signal.aborted });
  return progress;
}
