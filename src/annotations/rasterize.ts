import type { PolygonWithHoles } from '../engine/types';

/**
 * Even-odd scanline fill at pixel centres: a pixel belongs to the shape when its centre lies inside
 * an odd number of rings, so holes stay empty. Writes `value` into `target` (row-major, width*height).
 */
export function fillPolygons(target: Uint8Array, width: number, height: number, polygons: readonly PolygonWithHoles[], value: number): void {
  const rings = polygons.flatMap((p) => [p.outer, ...p.holes]).filter((r) => r.length >= 3);
  const crossings: number[] = [];
  for (let y = 0; y < height; y++) {
    const cy = y + 0.5;
    crossings.length = 0;
    for (const ring of rings) {
      for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
        const [xi, yi] = ring[i];
        const [xj, yj] = ring[j];
        if (yi > cy !== yj > cy) crossings.push(xi + ((cy - yi) * (xj - xi)) / (yj - yi));
      }
    }
    crossings.sort((a, b) => a - b);
    for (let k = 0; k + 1 < crossings.length; k += 2) {
      // Pixel x is covered when its centre x + 0.5 lies in [start, end).
      const start = Math.max(0, Math.ceil(crossings[k] - 0.5));
      const end = Math.min(width, Math.ceil(crossings[k + 1] - 0.5));
      for (let x = start; x < end; x++) target[y * width + x] = value;
    }
  }
}
