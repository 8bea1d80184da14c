/**
 * Weighted Box Fusion (Solovyev, Wang & Gabruseva 2021) of the boxes that several passes of one
 * detector found: boxes of one concept overlapping a cluster's fused box by more than `iou` join the
 * cluster; the fused box's corners are the members' corners averaged with the scores as weights, and
 * its score is the members' score sum over the number of passes that could have seen it (a box that
 * one view of three found keeps a third of its score; one found by all three, their mean). Unlike
 * suppression, which keeps the best member as it is, agreement between views raises the score and
 * averaging the corners cancels part of each view's box error.
 */
import type { CornerBox, Detection } from '../../src/engine/text/detector';
import { boxIoU } from '../../src/engine/text/detector';

/** The boxes of one pass, and the part of the photo that pass saw (to count who could have found a box). */
export interface PassDetections {
  readonly detections: readonly Detection[];
  readonly view: CornerBox;
}

/** WBF's own matching threshold for its published ensembles. */
export const DEFAULT_WBF_IOU = 0.55;

interface Cluster {
  readonly members: Detection[];
  box: CornerBox;
}

function weightedBox(members: readonly Detection[]): CornerBox {
  const total = members.reduce((s, d) => s + d.score, 0);
  const weighted = (key: keyof CornerBox): number => members.reduce((s, d) => s + d.box[key] * d.score, 0) / total;
  return { x0: weighted('x0'), y0: weighted('y0'), x1: weighted('x1'), y1: weighted('y1') };
}

function contains(view: CornerBox, x: number, y: number): boolean {
  return x >= view.x0 && x <= view.x1 && y >= view.y0 && y <= view.y1;
}

/** Fused boxes, best first; each keeps the best member's fields (detector, class) with the fused box and score. */
export function weightedBoxFusion(passes: readonly PassDetections[], iou = DEFAULT_WBF_IOU): Detection[] {
  const all = passes.flatMap((p) => p.detections).sort((a, b) => b.score - a.score);
  const clustersByLabel = new Map<string, Cluster[]>();
  for (const detection of all) {
    const clusters = clustersByLabel.get(detection.label) ?? [];
    clustersByLabel.set(detection.label, clusters);
    let best: Cluster | undefined;
    let bestIou = iou;
    for (const cluster of clusters) {
      const overlap = boxIoU(cluster.box, detection.box);
      if (overlap > bestIou) {
        best = cluster;
        bestIou = overlap;
      }
    }
    if (best) {
      best.members.push(detection);
      best.box = weightedBox(best.members);
    } else {
      clusters.push({ members: [detection], box: detection.box });
    }
  }
  const fused: Detection[] = [];
  for (const clusters of clustersByLabel.values()) {
    for (const { members, box } of clusters) {
      const cx = (box.x0 + box.x1) / 2;
      const cy = (box.y0 + box.y1) / 2;
      const couldSee = Math.max(1, passes.filter((p) => contains(p.view, cx, cy)).length);
      const sum = members.reduce((s, d) => s + d.score, 0);
      fused.push({ ...members[0], box, score: sum / Math.max(couldSee, members.length) });
    }
  }
  return fused.sort((a, b) => b.score - a.score);
}

/**
 * The calibrated boxes of several detectors fused by WBF, each detector counted as a pass that saw the
 * whole photo: corners averaged by calibrated score, score summed over the detectors asked.
 */
export function fuseDetectors(perDetector: readonly (readonly Detection[])[], iou: number): Detection[] {
  const whole: CornerBox = { x0: -Infinity, y0: -Infinity, x1: Infinity, y1: Infinity };
  return weightedBoxFusion(perDetector.map((detections) => ({ detections, view: whole })), iou);
}
