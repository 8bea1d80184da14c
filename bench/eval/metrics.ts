/** Per-image IoU and the protocol's summary metrics (NoC, NoF, mIoU@k, box mIoU). */
import type { GroundTruth } from './clicker';

/** |pred ∩ object| / |pred ∪ object| over non-ignore pixels; 1 when both are empty. */
export function iou(truth: GroundTruth, prediction: Uint8Array): number {
  const { labels } = truth;
  let intersection = 0;
  let union = 0;
  for (let i = 0; i < labels.length; i++) {
    const label = labels[i];
    if (label < 0) continue;
    const predicted = prediction[i] !== 0;
    const object = label === 1;
    if (predicted && object) intersection++;
    if (predicted || object) union++;
  }
  return union === 0 ? 1 : intersection / union;
}

/**
 * Number of clicks: the first k (1-based) with IoU_k >= threshold, or `maxClicks` if never.
 * `reached` is false when the threshold was never met: those images are the NoF failures
 * (the protocol counts "never reached", so an image reaching it exactly at click 20 is not one).
 */
export function clicksToReach(ious: readonly number[], threshold: number, maxClicks: number): { noc: number; reached: boolean } {
  const limit = Math.min(ious.length, maxClicks);
  for (let k = 0; k < limit; k++) {
    if (ious[k] >= threshold) return { noc: k + 1, reached: true };
  }
  return { noc: maxClicks, reached: false };
}

export interface ImageResult {
  readonly name: string;
  /** IoU after click 1, 2, ... */
  readonly ious: readonly number[];
  readonly boxIou?: number;
}

export interface Summary {
  readonly images: number;
  readonly maxClicks: number;
  readonly noc85: number;
  readonly noc90: number;
  readonly nof85: number;
  readonly nof90: number;
  /** mIoU after exactly k clicks, for k = 1, 3, 5 and the last click (absent when fewer clicks were simulated). */
  readonly miou: Record<string, number>;
  readonly boxMiou?: number;
}

export function summarize(results: readonly ImageResult[], maxClicks: number): Summary {
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  const at = (threshold: number) => results.map((r) => clicksToReach(r.ious, threshold, maxClicks));
  const at85 = at(0.85);
  const at90 = at(0.9);
  const miou: Record<string, number> = {};
  for (const k of new Set([1, 3, 5, maxClicks])) {
    if (k <= maxClicks && results.every((r) => r.ious.length >= k)) miou[k] = mean(results.map((r) => r.ious[k - 1]));
  }
  const boxIous = results.flatMap((r) => (r.boxIou === undefined ? [] : [r.boxIou]));
  return {
    images: results.length,
    maxClicks,
    noc85: mean(at85.map((r) => r.noc)),
    noc90: mean(at90.map((r) => r.noc)),
    nof85: at85.filter((r) => !r.reached).length,
    nof90: at90.filter((r) => !r.reached).length,
    miou,
    ...(boxIous.length > 0 ? { boxMiou: mean(boxIous) } : {}),
  };
}
