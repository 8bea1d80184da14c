import { DEFAULT_PROPOSAL_DEDUPE, dedupeProposals, type DropReason } from '../../engine/proposalDedupe';
import { maskIoU } from '../geometry/maskPaint';
import { objectMask } from '../geometry/objectMask';
import { classById } from '../state/classOps';
import { isShown } from '../../annotations/review';
import type { ClassDef, ImageEntry, Annotation } from '../../annotations/annotation';
import { studio, useStudio } from '../state/studioStore';

/**
 * Objects a machine proposes (a text prompt, "Find similar") meet the image's accepted objects
 * through the one de-duplication rule (engine/proposalDedupe.ts): an object already there, a part of
 * one, a repeat within the answer or a mask that is a group of instances is not added. A proposal
 * someone already rejected on the image (the same mask, at the rule's IoU) is not proposed again.
 */
type Proposal = Pick<Annotation, 'mask' | 'polygons' | 'label' | 'review'> & { readonly classId?: number | null };

/** Why a proposal was not added: the engine's rule, or a person rejected it before. */
export type LeftOutReason = DropReason | 'rejected-before';

/** What an object is for de-duplication: its class name, else (proposals) its label; unlabelled accepted objects match any class. */
function classKeyOf(classes: readonly ClassDef[], object: Proposal, accepted: boolean): string | null {
  const named = classById({ classes }, object.classId);
  if (named) return named.name.trim().toLowerCase();
  return accepted ? null : object.label.trim().toLowerCase();
}

export function withoutDuplicates<T extends Proposal>(
  existing: readonly Proposal[],
  incoming: readonly T[],
  image: Pick<ImageEntry, 'width' | 'height'>,
  classes: readonly ClassDef[] = [],
): { added: T[]; duplicates: number; reasons: LeftOutReason[] } {
  const masked = (o: Proposal, accepted: boolean) => ({ mask: objectMask(o, image.width, image.height), classKey: classKeyOf(classes, o, accepted) });
  const rejected = existing.filter((o) => !isShown(o)).map((o) => objectMask(o, image.width, image.height));
  const proposals = incoming.map((object) => ({ object, ...masked(object, false) }));
  const { kept, dropped } = dedupeProposals(
    existing.filter(isShown).map((o) => masked(o, true)),
    proposals,
  );
  const reasons: LeftOutReason[] = dropped.map((d) => d.reason);
  const added = kept.filter((k) => {
    const rejectedBefore = rejected.some((mask) => maskIoU(mask, k.mask) >= DEFAULT_PROPOSAL_DEDUPE.iou);
    if (rejectedBefore) reasons.push('rejected-before');
    return !rejectedBefore;
  });
  return { added: added.map((k) => k.object), duplicates: reasons.length, reasons };
}

const REASON_WORDS: Record<LeftOutReason, string> = {
  'repeats-accepted': 'already on the image',
  'inside-accepted': 'part of an object already there',
  'repeats-proposal': 'found twice',
  'inside-proposal': 'part of another result',
  'group-of-instances': 'several objects in one mask',
  'rejected-before': 'rejected before',
};

/** " · 2 not added: 1 already on the image, 1 several objects in one mask" (empty when nothing was left out). */
export function leftOutNote(reasons: readonly LeftOutReason[]): string {
  if (reasons.length === 0) return '';
  const counts = new Map<LeftOutReason, number>();
  for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  return ` · ${reasons.length} not added: ${[...counts].map(([r, n]) => `${n} ${REASON_WORDS[r]}`).join(', ')}`;
}

/** Adds the objects to the image in one undo step, leaving out those already there; returns how many were left out and why. */
export function addWithoutDuplicates(
  image: Pick<ImageEntry, 'id' | 'width' | 'height'>,
  objects: ReadonlyArray<Omit<Annotation, 'color' | 'id'>>,
  action?: string,
): { added: number; duplicates: number; reasons: LeftOutReason[] } {
  const doc = useStudio.getState().history.present;
  const { added, duplicates, reasons } = withoutDuplicates(doc.objects[image.id] ?? [], objects, image, doc.classes);
  if (added.length > 0) studio.addObjects(image.id, added, action);
  return { added: added.length, duplicates, reasons };
}
