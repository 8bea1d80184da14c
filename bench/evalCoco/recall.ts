/**
 * Class-agnostic average recall for segment-everything: of the ground-truth instances (every class
 * at once), the share matched by one of the image's best `maxDetections` proposals at mask IoU ≥ 0.5
 * (COCOeval's greedy matching, metrics.ts), overall and by COCO's area ranges.
 */
import { cocoIoU, matchImage, MAX_DETECTIONS, type GroundTruthInstance, type ScoredInstance } from './metrics';

/** COCO's area ranges, by the annotation's `area`: small < 32², medium < 96², large the rest. */
export type AreaRange = 'small' | 'medium' | 'large';
export function areaRange(area: number): AreaRange {
  return area < 32 * 32 ? 'small' : area < 96 * 96 ? 'medium' : 'large';
}

export interface RecallCount {
  matched: number;
  instances: number;
}

export type RecallCounts = Record<'all' | AreaRange, RecallCount>;

export function emptyRecallCounts(): RecallCounts {
  return { all: { matched: 0, instances: 0 }, small: { matched: 0, instances: 0 }, medium: { matched: 0, instances: 0 }, large: { matched: 0, instances: 0 } };
}

/**
 * Adds one image. Per area range the ground truth outside the range is left out and the matching
 * run again (so a proposal is not used up by an object of another range); crowd regions absorb
 * proposals without counting.
 */
export function addImageRecall(
  counts: RecallCounts,
  gts: readonly (GroundTruthInstance & { area: number })[],
  proposals: readonly ScoredInstance[],
  iouThreshold = 0.5,
): void {
  const count = (subset: readonly GroundTruthInstance[]) => {
    const match = matchImage(subset, proposals, [iouThreshold]);
    return { matched: match.matched[0].filter(Boolean).length, instances: match.positives };
  };
  const add = (key: keyof RecallCounts, c: RecallCount) => {
    counts[key].matched += c.matched;
    counts[key].instances += c.instances;
  };
  add('all', count(gts));
  for (const range of ['small', 'medium', 'large'] as const) {
    add(range, count(gts.filter((g) => g.crowd || areaRange(g.area) === range)));
  }
}

export function recall(c: RecallCount): number | undefined {
  return c.instances ? c.matched / c.instances : undefined;
}

/** How close the nearest proposal came to an instance: a miss needs a better mask (0.3–0.5) or a prompt at all (< 0.1). */
export type Nearness = 'iou >= 0.5' | 'iou 0.3-0.5' | 'iou 0.1-0.3' | 'iou < 0.1';

/** Each non-crowd instance's best mask IoU with any of the best `MAX_DETECTIONS` proposals, in bands. */
export function nearnessOf(gts: readonly GroundTruthInstance[], proposals: readonly ScoredInstance[]): Nearness[] {
  const shown = [...proposals].sort((a, b) => b.score - a.score).slice(0, MAX_DETECTIONS);
  return gts
    .filter((g) => !g.crowd)
    .map((g) => {
      const best = shown.reduce((m, p) => Math.max(m, cocoIoU(p.region, g)), 0);
      return best >= 0.5 ? 'iou >= 0.5' : best >= 0.3 ? 'iou 0.3-0.5' : best >= 0.1 ? 'iou 0.1-0.3' : 'iou < 0.1';
    });
}
