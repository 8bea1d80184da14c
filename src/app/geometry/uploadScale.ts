import type { BoxPrompt, PointPrompt, PolygonWithHoles, Ring } from '../../engine/types';

/**
 * The service recommends images within 1024 px. We upload a scaled copy and scale every
 * coordinate on the way out (prompts) and back (polygons), so users only ever see original pixels.
 */
export function uploadScaleFor(width: number, height: number, maxSide = 1024): number {
  const longest = Math.max(width, height);
  return longest > maxSide ? maxSide / longest : 1;
}

export function scaledSize(width: number, height: number, scale: number): { width: number; height: number } {
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

export function scalePoint(point: PointPrompt, scale: number): PointPrompt {
  return { ...point, x: point.x * scale, y: point.y * scale };
}

export function scaleBox(box: BoxPrompt, scale: number): BoxPrompt {
  return { x: box.x * scale, y: box.y * scale, width: box.width * scale, height: box.height * scale };
}

export function scaleRing(ring: Ring, scale: number): Ring {
  return ring.map(([x, y]) => [x * scale, y * scale]);
}

/** Returned polygons refer to the uploaded image: divide by the upload scale to get original pixels. */
export function polygonsToOriginal(polygons: readonly PolygonWithHoles[], uploadScale: number): PolygonWithHoles[] {
  const back = 1 / uploadScale;
  return polygons.map((p) => ({ outer: scaleRing(p.outer, back), holes: p.holes.map((h) => scaleRing(h, back)) }));
}
