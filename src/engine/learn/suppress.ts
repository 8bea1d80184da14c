/**
 * One proposal per object and class: segment everything outlines an animal twice, or an animal and
 * also its head. The less probable of two same-class proposals is dropped when their boxes overlap
 * much (the same object again). A region lying mostly inside another is dropped only when that other
 * is settled (an object already on the photo): inside a mere proposal it may be the object itself,
 * the larger region being the whole photo or a group around it, and a part is left to the overlap
 * ranker, which learns from the person's decisions whether such regions are right.
 */
import { boxIoU, type CornerBox } from '../text/detector';

export const DUPLICATE_BOX_IOU = 0.5;
export const PART_INSIDE_SHARE = 0.8;

export interface ClassedProposal {
  readonly box: CornerBox;
  readonly classId: string;
  readonly probability: number;
}

/** Share of `inner`'s box inside `outer`'s. */
export function insideShare(inner: CornerBox, outer: CornerBox): number {
  const w = Math.max(0, Math.min(inner.x1, outer.x1) - Math.max(inner.x0, outer.x0));
  const h = Math.max(0, Math.min(inner.y1, outer.y1) - Math.max(inner.y0, outer.y0));
  const area = (inner.x1 - inner.x0) * (inner.y1 - inner.y0);
  return area > 0 ? (w * h) / area : 0;
}

/** The proposals kept, most probable first; `settled` tells an object already on the photo from a proposal. */
export function suppressSameClassOverlaps<T extends ClassedProposal>(proposals: readonly T[], settled: (p: T) => boolean = () => false): T[] {
  const kept: T[] = [];
  for (const p of [...proposals].sort((a, b) => b.probability - a.probability)) {
    const covered = kept.some((k) => k.classId === p.classId && (boxIoU(k.box, p.box) >= DUPLICATE_BOX_IOU || (settled(k) && insideShare(p.box, k.box) >= PART_INSIDE_SHARE)));
    if (!covered) kept.push(p);
  }
  return kept;
}
