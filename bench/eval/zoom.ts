/**
 * "Zoom-in" (RITM's ZoomIn, FocalClick's focus crop): after the first clicks, segment a crop around
 * the current object instead of the whole photo, so the encoder sees the object at a higher
 * resolution. Pure geometry here; evaluate.ts runs the model on the crop.
 *
 * Regions are inclusive pixel rectangles of the full image. The object ROI follows RITM's
 * `get_object_roi`: bounding box of (prediction ∪ positive clicks), each side scaled by the
 * expansion ratio around its centre but never below the minimum crop size, clamped to the image.
 */
import type { RgbaImage } from '../../src/engine/types';
import { maskBounds } from '../../src/engine/bounds';
import { cropImage as cropPixels } from '../../src/engine/crop';
import { LOW_RES_SIZE, MODEL_SIZE, modelFrame } from '../../src/engine/frame';
import type { Click } from './clicker';

export interface Region {
  readonly x0: number;
  readonly y0: number;
  /** Inclusive. */
  readonly x1: number;
  readonly y1: number;
}

export const regionWidth = (r: Region): number => r.x1 - r.x0 + 1;
export const regionHeight = (r: Region): number => r.y1 - r.y0 + 1;
export const wholeImage = (width: number, height: number): Region => ({ x0: 0, y0: 0, x1: width - 1, y1: height - 1 });
export const sameRegion = (a: Region, b: Region): boolean => a.x0 === b.x0 && a.y0 === b.y0 && a.x1 === b.x1 && a.y1 === b.y1;

export interface ZoomSettings {
  readonly expansion: number;
  readonly minCropSize: number;
  /** The crop's sides are at least this share of the photo's longer side, so it keeps that much context. */
  readonly minCropFraction?: number;
}

/** The object's ROI, or null when there is neither a predicted pixel nor a positive click. */
export function objectRoi(
  prediction: Uint8Array,
  width: number,
  height: number,
  clicks: readonly Click[],
  settings: ZoomSettings,
): Region | null {
  const predicted = maskBounds(prediction, width, height);
  let x0 = predicted?.x0 ?? width;
  let y0 = predicted?.y0 ?? height;
  let x1 = predicted?.x1 ?? -1;
  let y1 = predicted?.y1 ?? -1;
  for (const c of clicks) {
    if (!c.positive) continue;
    x0 = Math.min(x0, c.x);
    x1 = Math.max(x1, c.x);
    y0 = Math.min(y0, c.y);
    y1 = Math.max(y1, c.y);
  }
  if (x1 < 0) return null;
  const minSide = Math.max(settings.minCropSize, (settings.minCropFraction ?? 0) * Math.max(width, height));
  const expand = (lo: number, hi: number, limit: number): [number, number] => {
    const centre = (lo + hi) / 2;
    const size = Math.max((hi - lo + 1) * settings.expansion, minSide);
    const from = Math.max(0, Math.round(centre - size / 2));
    const to = Math.min(limit - 1, Math.round(centre + size / 2));
    return [from, to];
  };
  const [ex0, ex1] = expand(x0, x1, width);
  const [ey0, ey1] = expand(y0, y1, height);
  return { x0: ex0, y0: ey0, x1: ex1, y1: ey1 };
}

export function regionIou(a: Region, b: Region): number {
  const iw = Math.max(0, Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0) + 1);
  const ih = Math.max(0, Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0) + 1);
  const inter = iw * ih;
  return inter / (regionWidth(a) * regionHeight(a) + regionWidth(b) * regionHeight(b) - inter);
}

/** True when every positive click lies inside the region (RITM's `check_object_roi`). */
export function containsPositiveClicks(region: Region, clicks: readonly Click[]): boolean {
  return clicks.every((c) => !c.positive || (c.x >= region.x0 && c.x <= region.x1 && c.y >= region.y0 && c.y <= region.y1));
}

/** The region's pixels (its x1 and y1 are inclusive, the engine's crop box's exclusive). */
export function cropImage(image: RgbaImage, region: Region): RgbaImage {
  return cropPixels(image, { x0: region.x0, y0: region.y0, x1: region.x1 + 1, y1: region.y1 + 1 });
}

/** A crop's mask pasted into a full-size mask; outside the crop nothing is predicted (as in RITM). */
export function pasteMask(cropMask: Uint8Array, region: Region, width: number, height: number): Uint8Array {
  const out = new Uint8Array(width * height);
  const cropWidth = regionWidth(region);
  for (let y = 0; y < regionHeight(region); y++) {
    out.set(cropMask.subarray(y * cropWidth, (y + 1) * cropWidth), (region.y0 + y) * width + region.x0);
  }
  return out;
}

/**
 * Re-expresses SAM's 256×256 low-resolution logits of one region's model frame in another region's
 * frame, so mask feedback survives a change of crop. Each target cell centre is mapped to image
 * coordinates and sampled bilinearly (edge-clamped) from the source grid, using the same
 * longest-side-1024 geometry as the engine (align_corners=False cell centres). Cells whose centre
 * lies outside the source region get a confident "background" logit: nothing was predicted there.
 */
export const OUTSIDE_LOGIT = -20;

export function remapLowResLogits(logits: Float32Array, from: Region, to: Region): Float32Array {
  if (sameRegion(from, to)) return logits.slice();
  const source = modelFrame(regionWidth(from), regionHeight(from));
  const target = modelFrame(regionWidth(to), regionHeight(to));
  const cell = MODEL_SIZE / LOW_RES_SIZE;
  const out = new Float32Array(LOW_RES_SIZE * LOW_RES_SIZE);
  const last = LOW_RES_SIZE - 1;
  const clamp = (v: number) => Math.min(last, Math.max(0, v));
  for (let i = 0; i < LOW_RES_SIZE; i++) {
    // Target cell centre → image coordinates (continuous, pixel k covers [k, k+1)).
    const imageY = ((i + 0.5) * cell) / target.scaleY + to.y0;
    const rowOutside = imageY < from.y0 || imageY > from.y1 + 1;
    const sourceRow = ((imageY - from.y0) * source.scaleY) / cell - 0.5;
    const r0 = Math.floor(sourceRow);
    const fy = sourceRow - r0;
    const ra = clamp(r0);
    const rb = clamp(r0 + 1);
    for (let j = 0; j < LOW_RES_SIZE; j++) {
      const imageX = ((j + 0.5) * cell) / target.scaleX + to.x0;
      if (rowOutside || imageX < from.x0 || imageX > from.x1 + 1) {
        out[i * LOW_RES_SIZE + j] = OUTSIDE_LOGIT;
        continue;
      }
      const sourceCol = ((imageX - from.x0) * source.scaleX) / cell - 0.5;
      const c0 = Math.floor(sourceCol);
      const fx = sourceCol - c0;
      const ca = clamp(c0);
      const cb = clamp(c0 + 1);
      const top = logits[ra * LOW_RES_SIZE + ca] * (1 - fx) + logits[ra * LOW_RES_SIZE + cb] * fx;
      const bottom = logits[rb * LOW_RES_SIZE + ca] * (1 - fx) + logits[rb * LOW_RES_SIZE + cb] * fx;
      out[i * LOW_RES_SIZE + j] = top * (1 - fy) + bottom * fy;
    }
  }
  return out;
}
