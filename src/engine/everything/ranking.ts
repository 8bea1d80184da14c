/**
 * How segment everything orders its proposals inside the cap it shows. SAM's generator reads only the
 * decoder's opinion of its own mask (predicted IoU × stability). A proposal from a detector's box also
 * carries the detector's calibrated score: how probably an object is there at all. In a crowded photo
 * most of the proposals past the first few dozen come from weak boxes whose masks the decoder rates
 * well anyway, and the detector's score tells the real ones from those.
 *
 * A detector scores a small object low at the photo's scale; a tile's look, at about twice the
 * resolution, often boxes the same object again with a higher score. That second look is evidence too,
 * so an object's objectness is the highest score any look gave a box of it.
 */
import { boxIoU, type CornerBox } from '../text/detector';

/** 'mask': the decoder's opinion only (SAM's rule); 'mask and detector': times the detectors' evidence. */
export type ProposalRanking = 'mask' | 'mask and detector';

export interface RankedEvidence {
  /** predicted IoU × stability. */
  readonly confidence: number;
  /** The highest calibrated score any look (the photo, a tile) gave a box of the proposal's object. */
  readonly strongestDetectorScore?: number;
}

/** How a rule ranks: the ranking, and the evidence a proposal no box asked for counts as (the weakest box the rule asks). */
export interface RankingRule {
  readonly ranking: ProposalRanking;
  readonly weakestBoxScore: number;
}

/**
 * What proposals are ordered by, in [0, 1]. With the detectors' evidence: confidence × √score. The root
 * gives the decoder's opinion the larger say: the plain product pushed small objects, which the detectors
 * score low, past the cap (docs/RESULTS.md, h37-bulkrank: the two were measured, no other power). A
 * proposal no box asked for (a grid point) counts as the weakest box the rule asks.
 */
export function rankScore(proposal: RankedEvidence, rule: RankingRule): number {
  if (rule.ranking === 'mask') return proposal.confidence;
  return proposal.confidence * Math.sqrt(proposal.strongestDetectorScore ?? rule.weakestBoxScore);
}

/**
 * The proposals, each whose box a look's box repeats (box IoU above `nmsIou`, photo pixels) raised to
 * that box's score where it is higher, and ranked by it (`rule`); the others as they are (the same
 * objects when nothing changed).
 */
export function withLookEvidence<T extends RankedEvidence & { readonly box: CornerBox; readonly rankScore: number }>(
  proposals: readonly T[],
  looks: readonly { readonly box: CornerBox; readonly score: number }[],
  nmsIou: number,
  rule: RankingRule,
): T[] {
  return proposals.map((proposal) => {
    let strongest = proposal.strongestDetectorScore;
    for (const look of looks) {
      if (look.score > (strongest ?? 0) && boxIoU(look.box, proposal.box) > nmsIou) strongest = look.score;
    }
    if (strongest === proposal.strongestDetectorScore) return proposal;
    const raised = { ...proposal, strongestDetectorScore: strongest };
    return { ...raised, rankScore: rankScore(raised, rule) };
  });
}
