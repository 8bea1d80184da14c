/**
 * The "Detail" slider speaks in detail, not in pixels: 0 (coarse outline, few vertices) to 10
 * (follows the mask closely). Internally the outline is simplified with a tolerance in image pixels.
 */
export const DETAIL_MAX = 10;
const TOLERANCE_PER_LEVEL = 0.4;

export function detailFromTolerance(tolerance: number): number {
  return Math.min(DETAIL_MAX, Math.max(0, Math.round(DETAIL_MAX - tolerance / TOLERANCE_PER_LEVEL)));
}

export function toleranceFromDetail(detail: number): number {
  return Math.round((DETAIL_MAX - detail) * TOLERANCE_PER_LEVEL * 100) / 100;
}
