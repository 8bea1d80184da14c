/**
 * Proposals dedupe by mask IoU and containment: what a machine proposes as new objects (text
 * prompts, find similar, bulk labelling), checked against the objects already accepted on the image
 * and against each other, so a reviewer sees each object once and never a mask that is two objects.
 *
 * - A proposal that covers two or more same-class instances (accepted or proposed, each at least
 *   `containment` inside it, together covering most of it) is a group, not an instance.
 * - A proposal at mask IoU ≥ `iou` with an accepted object, whatever its class, is that object again.
 * - A proposal lying `containment` inside an accepted object of its class (or an unlabelled one) is
 *   a part of it.
 * - Among the proposals, taken in the order given (best first), the same two rules against those
 *   already kept.
 * Pure and DOM-free: the studio, the server and bulk labelling share it.
 */
import type { BinaryMask } from './types';

export interface MaskedObject {
  readonly mask: BinaryMask;
  /** What the object is (a class name or id); null = unlabelled, which matches any class. */
  readonly classKey: string | number | null;
}

export interface ProposalDedupeOptions {
  /** Same object at this mask IoU or more. */
  readonly iou: number;
  /** Share of a mask inside another for it to count as part of it. */
  readonly containment: number;
  /** Share of a group proposal its contained instances must cover together. */
  readonly groupCover: number;
}

export const DEFAULT_PROPOSAL_DEDUPE: ProposalDedupeOptions = Object.freeze({ iou: 0.7, containment: 0.85, groupCover: 0.6 });

export type DropReason = 'repeats-accepted' | 'inside-accepted' | 'repeats-proposal' | 'inside-proposal' | 'group-of-instances';

export interface ProposalDedupeResult<T> {
  readonly kept: T[];
  readonly dropped: Array<{ readonly proposal: T; readonly reason: DropReason }>;
}

interface Shape {
  readonly data: Uint8Array;
  readonly width: number;
  readonly area: number;
  readonly box: readonly [number, number, number, number]; // x0, y0, x1, y1 inclusive
  readonly classKey: string | number | null;
}

function shapeOf(o: MaskedObject): Shape {
  const { width, height, data } = o.mask;
  let x0 = width;
  let y0 = height;
  let x1 = -1;
  let y1 = -1;
  let area = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (!data[y * width + x]) continue;
      area++;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      y1 = y;
    }
  }
  return { data, width, area, box: [x0, y0, x1, y1], classKey: o.classKey };
}

/** Pixels set in both, counted only where the boxes overlap. */
function intersection(a: Shape, b: Shape): number {
  const x0 = Math.max(a.box[0], b.box[0]);
  const y0 = Math.max(a.box[1], b.box[1]);
  const x1 = Math.min(a.box[2], b.box[2]);
  const y1 = Math.min(a.box[3], b.box[3]);
  let n = 0;
  for (let y = y0; y <= y1; y++) {
    const row = y * a.width;
    for (let x = x0; x <= x1; x++) if (a.data[row + x] && b.data[row + x]) n++;
  }
  return n;
}

const sameClass = (proposal: Shape, other: Shape) => other.classKey === null || other.classKey === proposal.classKey;

function dedupeShapes(accepted: readonly Shape[], proposals: readonly Shape[], options: ProposalDedupeOptions): Array<DropReason | null> {
  const iou = (a: Shape, b: Shape, inter = intersection(a, b)) => (inter === 0 ? 0 : inter / (a.area + b.area - inter));
  const inside = (part: Shape, whole: Shape) => part.area > 0 && intersection(part, whole) >= options.containment * part.area;

  const isGroup = (p: Shape) => {
    const members: Shape[] = [];
    for (const q of [...accepted, ...proposals]) {
      if (q === p || q.area >= p.area || q.classKey !== p.classKey || !inside(q, p) || iou(q, p) >= options.iou) continue;
      if (members.some((m) => iou(m, q) >= options.iou)) continue;
      members.push(q);
    }
    if (members.length < 2) return false;
    let covered = 0;
    for (let y = p.box[1]; y <= p.box[3]; y++) {
      for (let x = p.box[0]; x <= p.box[2]; x++) {
        const i = y * p.width + x;
        if (p.data[i] && members.some((m) => m.data[i])) covered++;
      }
    }
    return covered >= options.groupCover * p.area;
  };

  const kept: Shape[] = [];
  return proposals.map((p) => {
    if (p.area === 0) return 'inside-proposal';
    const reason: DropReason | null = isGroup(p)
      ? 'group-of-instances'
      : accepted.some((a) => iou(p, a) >= options.iou)
        ? 'repeats-accepted'
        : accepted.some((a) => sameClass(p, a) && inside(p, a))
          ? 'inside-accepted'
          : kept.some((k) => iou(p, k) >= options.iou)
            ? 'repeats-proposal'
            : kept.some((k) => sameClass(p, k) && inside(p, k))
              ? 'inside-proposal'
              : null;
    if (!reason) kept.push(p);
    return reason;
  });
}

/** The proposals to offer (in the order given) and why each other one was left out. */
export function dedupeProposals<T extends MaskedObject>(
  accepted: readonly MaskedObject[],
  proposals: readonly T[],
  options: Partial<ProposalDedupeOptions> = {},
): ProposalDedupeResult<T> {
  const chosen = { ...DEFAULT_PROPOSAL_DEDUPE, ...options };
  const acceptedShapes = accepted.map(shapeOf);
  const proposalShapes = proposals.map(shapeOf);
  const [first] = [...accepted, ...proposals];
  if ([...accepted, ...proposals].some((o) => o.mask.width !== first.mask.width || o.mask.height !== first.mask.height)) throw new RangeError('masks differ in size');
  const reasons = dedupeShapes(acceptedShapes, proposalShapes, chosen);
  const kept: T[] = [];
  const dropped: Array<{ proposal: T; reason: DropReason }> = [];
  reasons.forEach((reason, i) => (reason ? dropped.push({ proposal: proposals[i], reason }) : kept.push(proposals[i])));
  return { kept, dropped };
}
