import type { PolygonWithHoles, Ring, Vertex } from '../engine/types';

/** Signed shoelace area: positive for counter-clockwise rings in a y-up frame. */
export function signedRingArea(ring: readonly Vertex[]): number {
  let twice = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    twice += ring[j][0] * ring[i][1] - ring[i][0] * ring[j][1];
  }
  return twice / 2;
}

export function polygonArea(polygon: PolygonWithHoles): number {
  const holes = polygon.holes.reduce((sum, hole) => sum + Math.abs(signedRingArea(hole)), 0);
  return Math.max(0, Math.abs(signedRingArea(polygon.outer)) - holes);
}

export interface Bounds {
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
}

export function boundsOf(polygons: readonly PolygonWithHoles[]): Bounds | null {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const polygon of polygons) {
    for (const [x, y] of polygon.outer) {
      minX = Math.min(minX, x);
      minY = Math.min(minY, y);
      maxX = Math.max(maxX, x);
      maxY = Math.max(maxY, y);
    }
  }
  if (!Number.isFinite(minX)) return null;
  return { left: minX, top: minY, width: maxX - minX, height: maxY - minY };
}

/** Even-odd point-in-polygon over all rings: a point inside a hole is outside the shape. */
export function containsPoint(polygon: PolygonWithHoles, point: Vertex): boolean {
  let inside = false;
  for (const ring of [polygon.outer, ...polygon.holes]) {
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const [xi, yi] = ring[i];
      const [xj, yj] = ring[j];
      if (yi > point[1] !== yj > point[1] && point[0] < ((xj - xi) * (point[1] - yi)) / (yj - yi) + xi) inside = !inside;
    }
  }
  return inside;
}

/**
 * Formats without holes (COCO polygons, the API's rings, YOLO-seg) get each hole joined to its
 * outer ring by a zero-width "keyhole" cut: the ring walks in along the cut, around the hole and
 * back out. Rasterised, it covers the same pixels as outer-minus-holes.
 */
export function bridgeHoles(polygon: PolygonWithHoles): Ring {
  let ring: Ring = polygon.outer.map((v) => [v[0], v[1]]);
  const outerSign = Math.sign(signedRingArea(polygon.outer));
  for (const rawHole of polygon.holes) {
    if (rawHole.length < 3) continue;
    // Walk each hole against the outer ring's direction so nonzero fill and shoelace area agree with even-odd.
    const hole = Math.sign(signedRingArea(rawHole)) === outerSign ? [...rawHole].reverse() : rawHole;
    let best = { ringIndex: 0, holeIndex: 0, distance: Infinity };
    for (let h = 0; h < hole.length; h++) {
      for (let r = 0; r < ring.length; r++) {
        const d = (hole[h][0] - ring[r][0]) ** 2 + (hole[h][1] - ring[r][1]) ** 2;
        if (d < best.distance) best = { ringIndex: r, holeIndex: h, distance: d };
      }
    }
    const holeWalk: Ring = [];
    for (let k = 0; k <= hole.length; k++) {
      const v = hole[(best.holeIndex + k) % hole.length];
      holeWalk.push([v[0], v[1]]);
    }
    const anchor = ring[best.ringIndex];
    ring = [
      ...ring.slice(0, best.ringIndex + 1),
      ...holeWalk,
      [anchor[0], anchor[1]],
      ...ring.slice(best.ringIndex + 1),
    ];
  }
  return ring;
}

export function flattenRing(ring: readonly Vertex[], digits = 2): number[] {
  const factor = 10 ** digits;
  const out: number[] = [];
  for (const [x, y] of ring) out.push(Math.round(x * factor) / factor, Math.round(y * factor) / factor);
  return out;
}
