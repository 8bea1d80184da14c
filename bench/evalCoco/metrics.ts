/**
 * COCO-style instance evaluation (the rules of pycocotools' COCOeval, area range "all", at most
 * 100 detections per image and category): greedy matching by score, crowd regions absorb
 * detections without counting them, 101-point interpolated average precision.
 */
import { maskBounds } from '../../src/engine/bounds';
import type { BinaryMask } from '../../src/engine/types';
import { maskArea } from '../../src/engine/upsample';

export const IOU_THRESHOLDS = [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95];
export const MAX_DETECTIONS = 100;

/** A mask with its pixel count and bounding rows/columns, so overlaps only scan the shared box. */
export interface Region {
  readonly mask: BinaryMask;
  readonly area: number;
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
}

/** An empty mask's bounds are inverted (x1 < x0), so it overlaps nothing. */
export function toRegion(mask: BinaryMask): Region {
  const bounds = maskBounds(mask.data, mask.width, mask.height) ?? { x0: mask.width, y0: mask.height, x1: -1, y1: -1 };
  return { mask, area: maskArea(mask), ...bounds };
}

/** Filled rectangle [x0, x1) × [y0, y1) (pixel centres inside), as a region. */
export function boxRegion(box: { x0: number; y0: number; x1: number; y1: number }, width: number, height: number): Region {
  const data = new Uint8Array(width * height);
  const xs = Math.max(0, Math.ceil(box.x0 - 0.5));
  const xe = Math.min(width - 1, Math.ceil(box.x1 - 0.5) - 1);
  const ys = Math.max(0, Math.ceil(box.y0 - 0.5));
  const ye = Math.min(height - 1, Math.ceil(box.y1 - 0.5) - 1);
  for (let y = ys; y <= ye; y++) data.fill(1, y * width + xs, y * width + xe + 1);
  return toRegion({ width, height, data });
}

export function intersection(a: Region, b: Region): number {
  const x0 = Math.max(a.x0, b.x0);
  const x1 = Math.min(a.x1, b.x1);
  const y0 = Math.max(a.y0, b.y0);
  const y1 = Math.min(a.y1, b.y1);
  if (x0 > x1 || y0 > y1) return 0;
  let n = 0;
  const w = a.mask.width;
  for (let y = y0; y <= y1; y++) {
    const row = y * w;
    for (let x = x0; x <= x1; x++) n += a.mask.data[row + x] & b.mask.data[row + x];
  }
  return n;
}

export interface GroundTruthInstance {
  readonly region: Region;
  readonly crowd: boolean;
}

export interface ScoredInstance {
  readonly region: Region;
  readonly score: number;
}

/** COCO's IoU: for a crowd ground truth, intersection over the detection's area. */
export function cocoIoU(det: Region, gt: GroundTruthInstance): number {
  const inter = intersection(det, gt.region);
  const union = gt.crowd ? det.area : det.area + gt.region.area - inter;
  return union > 0 ? inter / union : 0;
}

export interface ImageMatch {
  /** Detections sorted by score (best first), truncated to MAX_DETECTIONS. */
  readonly scores: number[];
  /** Per IoU threshold, per detection: matched a non-crowd ground truth. */
  readonly matched: boolean[][];
  /** Per IoU threshold, per detection: matched a crowd region (neither true nor false positive). */
  readonly ignored: boolean[][];
  /** Non-crowd ground truths. */
  readonly positives: number;
}

/** Matches one image's detections of one category to its ground truths at every threshold. */
export function matchImage(gts: readonly GroundTruthInstance[], dets: readonly ScoredInstance[], thresholds = IOU_THRESHOLDS): ImageMatch {
  // Non-crowd ground truths first, as COCOeval sorts them, so a detection prefers a real match.
  const sortedGts = [...gts].sort((a, b) => Number(a.crowd) - Number(b.crowd));
  const sortedDets = [...dets].sort((a, b) => b.score - a.score).slice(0, MAX_DETECTIONS);
  const ious = sortedDets.map((d) => sortedGts.map((g) => cocoIoU(d.region, g)));
  const matched: boolean[][] = [];
  const ignored: boolean[][] = [];
  for (const t of thresholds) {
    const gtTaken = sortedGts.map(() => false);
    const m: boolean[] = [];
    const ig: boolean[] = [];
    sortedDets.forEach((_, d) => {
      let best = -1;
      let bestIou = Math.min(t, 1 - 1e-10);
      for (let g = 0; g < sortedGts.length; g++) {
        if (gtTaken[g] && !sortedGts[g].crowd) continue;
        // Once matched to a real object, do not trade it for a crowd region.
        if (best > -1 && !sortedGts[best].crowd && sortedGts[g].crowd) break;
        if (ious[d][g] < bestIou) continue;
        bestIou = ious[d][g];
        best = g;
      }
      if (best === -1) {
        m.push(false);
        ig.push(false);
      } else {
        gtTaken[best] = true;
        m.push(!sortedGts[best].crowd);
        ig.push(sortedGts[best].crowd);
      }
    });
    matched.push(m);
    ignored.push(ig);
  }
  return { scores: sortedDets.map((d) => d.score), matched, ignored, positives: gts.filter((g) => !g.crowd).length };
}

/** 101-point interpolated AP per threshold over a category's images; undefined without positives. */
export function averagePrecision(images: readonly ImageMatch[], thresholds = IOU_THRESHOLDS): (number | undefined)[] {
  const positives = images.reduce((s, m) => s + m.positives, 0);
  if (positives === 0) return thresholds.map(() => undefined);
  return thresholds.map((_, ti) => {
    const entries: { score: number; tp: boolean }[] = [];
    for (const image of images) {
      image.scores.forEach((score, d) => {
        if (!image.ignored[ti][d]) entries.push({ score, tp: image.matched[ti][d] });
      });
    }
    // Stable sort, as COCOeval's mergesort.
    entries.sort((a, b) => b.score - a.score);
    const precision: number[] = [];
    const recall: number[] = [];
    let tp = 0;
    let fp = 0;
    for (const e of entries) {
      if (e.tp) tp++;
      else fp++;
      precision.push(tp / (tp + fp));
      recall.push(tp / positives);
    }
    for (let i = precision.length - 2; i >= 0; i--) precision[i] = Math.max(precision[i], precision[i + 1]);
    let sum = 0;
    let k = 0;
    for (let r = 0; r <= 100; r++) {
      const level = r / 100;
      while (k < recall.length && recall[k] < level) k++;
      sum += k < recall.length ? precision[k] : 0;
    }
    return sum / 101;
  });
}

/** True/false positives and misses at one IoU threshold (detections already filtered to an operating point). */
export function countAt(images: readonly ImageMatch[], thresholdIndex = 0): { tp: number; fp: number; positives: number } {
  let tp = 0;
  let fp = 0;
  let positives = 0;
  for (const image of images) {
    positives += image.positives;
    image.matched[thresholdIndex].forEach((m, d) => {
      if (m) tp++;
      else if (!image.ignored[thresholdIndex][d]) fp++;
    });
  }
  return { tp, fp, positives };
}

export function mean(values: readonly (number | undefined)[]): number | undefined {
  const defined = values.filter((v): v is number => v !== undefined);
  return defined.length ? defined.reduce((a, b) => a + b, 0) / defined.length : undefined;
}

export interface ReliabilityBin {
  /** Confidence range [from, to). */
  readonly from: number;
  readonly to: number;
  readonly count: number;
  /** Mean confidence of the answers in the bin. */
  readonly meanConfidence?: number;
  /** Share of them that matched an object at the threshold (precision in the bin). */
  readonly precision?: number;
}

/**
 * How well confidence reads as a probability of being right: answers binned by confidence, each
 * bin's precision beside its mean confidence, and the expected calibration error
 * ECE = Σ_b (n_b / N) · |precision_b − confidence_b|. Crowd matches are neither right nor wrong.
 */
export function reliability(images: readonly ImageMatch[], bins = 10, thresholdIndex = 0): { bins: ReliabilityBin[]; ece?: number; answers: number } {
  const sums = Array.from({ length: bins }, () => ({ count: 0, confidence: 0, right: 0 }));
  for (const image of images) {
    image.scores.forEach((score, d) => {
      if (image.ignored[thresholdIndex][d]) return;
      const b = Math.min(bins - 1, Math.max(0, Math.floor(score * bins)));
      sums[b].count++;
      sums[b].confidence += score;
      if (image.matched[thresholdIndex][d]) sums[b].right++;
    });
  }
  const answers = sums.reduce((n, s) => n + s.count, 0);
  let ece = 0;
  const out = sums.map((s, b) => {
    if (s.count === 0) return { from: b / bins, to: (b + 1) / bins, count: 0 };
    const meanConfidence = s.confidence / s.count;
    const precision = s.right / s.count;
    ece += (s.count / answers) * Math.abs(precision - meanConfidence);
    return { from: b / bins, to: (b + 1) / bins, count: s.count, meanConfidence, precision };
  });
  return { bins: out, ece: answers ? ece : undefined, answers };
}
