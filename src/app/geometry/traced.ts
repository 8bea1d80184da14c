import { maskOutline } from '../../engine/polygons';
import type { BinaryMask, PolygonWithHoles } from '../../engine/types';

/**
 * Outline of a mask at the detail slider's tolerance. Memoised per mask object: moving the slider
 * re-traces each mask once per distinct tolerance.
 */
const cache = new WeakMap<BinaryMask, Map<number, PolygonWithHoles[]>>();

export function tracedPolygons(mask: BinaryMask | undefined, fallback: readonly PolygonWithHoles[], tolerance: number): readonly PolygonWithHoles[] {
  if (!mask || !(mask.data instanceof Uint8Array)) return fallback;
  let byTolerance = cache.get(mask);
  if (!byTolerance) {
    byTolerance = new Map();
    cache.set(mask, byTolerance);
  }
  const key = Math.round(tolerance * 100) / 100;
  let polygons = byTolerance.get(key);
  if (!polygons) {
    polygons = maskOutline(mask, { tolerance: key });
    byTolerance.set(key, polygons);
  }
  return polygons;
}
