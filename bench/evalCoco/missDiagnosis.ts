/**
 * Why segment everything missed an instance, for the everything eval: was a proposal for it made but
 * ranked past the 100 shown (`ranked out`), was one near but with a poor mask, or was nothing near at
 * all; and how the instance looked to the photo's encoder (its longer side in the encoder's 16 px
 * patches at 1024 px) and how crowded its photo was. Misses are tallied per area range so the small
 * instances' reasons can be read apart.
 */
import { MODEL_SIZE } from '../../src/engine/frame';
import { cocoIoU, MAX_DETECTIONS, type GroundTruthInstance, type ScoredInstance } from './metrics';
import { areaRange, type AreaRange } from './recall';

const ENCODER_PATCH = 16;

export type MissReason = 'ranked out' | 'poor mask (iou 0.3-0.5)' | 'poor mask (iou 0.1-0.3)' | 'nothing near';

/** An instance as the diagnosis reads it: its region, COCO's area and bbox ([x, y, w, h]). */
export interface DiagnosedInstance extends GroundTruthInstance {
  readonly area: number;
  readonly bbox: readonly number[];
}

/** Counts of missed instances: by area range, then reason, encoder patches and crowding. */
export type MissTally = Partial<Record<AreaRange, { reason: Record<string, number>; patches: Record<string, number>; crowding: Record<string, number> }>>;

/** The longer side of a bbox in the photo encoder's patches, in bands: under 1, 1–2, 2–4, 4–8, 8 and more. */
export function patchBand(bbox: readonly number[], photoWidth: number, photoHeight: number): string {
  const patches = (Math.max(bbox[2], bbox[3]) * MODEL_SIZE) / Math.max(photoWidth, photoHeight) / ENCODER_PATCH;
  return patches < 1 ? '< 1 patch' : patches < 2 ? '1-2 patches' : patches < 4 ? '2-4 patches' : patches < 8 ? '4-8 patches' : '>= 8 patches';
}

/** How many instances (crowd regions left out) share the photo, in bands. */
export function crowdingBand(instancesInPhoto: number): string {
  return instancesInPhoto < 5 ? '< 5 in photo' : instancesInPhoto < 10 ? '5-9 in photo' : instancesInPhoto < 20 ? '10-19 in photo' : '>= 20 in photo';
}

/**
 * Adds one photo's misses. `proposals` are all the rule made, not only the shown ones: a miss whose
 * instance some proposal past the best `MAX_DETECTIONS` matches at IoU ≥ 0.5 was ranked out. An
 * instance is a miss when no shown proposal matches it at IoU ≥ 0.5 (the nearness test, which lets
 * two instances share a proposal, so it may count slightly fewer misses than the greedy matching).
 */
export function tallyMisses(tally: MissTally, gts: readonly DiagnosedInstance[], proposals: readonly ScoredInstance[], photoWidth: number, photoHeight: number): void {
  const ranked = [...proposals].sort((a, b) => b.score - a.score);
  const shown = ranked.slice(0, MAX_DETECTIONS);
  const beyond = ranked.slice(MAX_DETECTIONS);
  const real = gts.filter((g) => !g.crowd);
  const crowding = crowdingBand(real.length);
  for (const g of real) {
    const best = shown.reduce((m, p) => Math.max(m, cocoIoU(p.region, g)), 0);
    if (best >= 0.5) continue;
    const reason: MissReason = beyond.some((p) => cocoIoU(p.region, g) >= 0.5)
      ? 'ranked out'
      : best >= 0.3
        ? 'poor mask (iou 0.3-0.5)'
        : best >= 0.1
          ? 'poor mask (iou 0.1-0.3)'
          : 'nothing near';
    const entry = (tally[areaRange(g.area)] ??= { reason: {}, patches: {}, crowding: {} });
    const add = (counts: Record<string, number>, key: string) => (counts[key] = (counts[key] ?? 0) + 1);
    add(entry.reason, reason);
    add(entry.patches, patchBand(g.bbox, photoWidth, photoHeight));
    add(entry.crowding, crowding);
  }
}
