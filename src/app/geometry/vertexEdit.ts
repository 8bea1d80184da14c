import type { PolygonWithHoles, Ring, Vertex } from '../../engine/types';

/** Where a vertex lives: polygon index, ring (0 = outer, k = hole k-1), vertex index. */
export interface VertexRef {
  readonly polygon: number;
  readonly ring: number;
  readonly vertex: number;
}

function ringOf(polygon: PolygonWithHoles, ring: number): Ring | undefined {
  return ring === 0 ? polygon.outer : polygon.holes[ring - 1];
}

function withRing(polygons: readonly PolygonWithHoles[], ref: Pick<VertexRef, 'polygon' | 'ring'>, change: (ring: Ring) => Ring): PolygonWithHoles[] {
  return polygons.map((p, pi) => {
    if (pi !== ref.polygon) return p;
    if (ref.ring === 0) return { outer: change(p.outer), holes: p.holes };
    return { outer: p.outer, holes: p.holes.map((h, hi) => (hi === ref.ring - 1 ? change(h) : h)) };
  });
}

export function vertexAt(polygons: readonly PolygonWithHoles[], ref: VertexRef): Vertex | undefined {
  const polygon = polygons[ref.polygon];
  return polygon ? ringOf(polygon, ref.ring)?.[ref.vertex] : undefined;
}

export function moveVertex(polygons: readonly PolygonWithHoles[], ref: VertexRef, to: Vertex): PolygonWithHoles[] {
  return withRing(polygons, ref, (ring) => ring.map((v, i) => (i === ref.vertex ? ([to[0], to[1]] as Vertex) : v)));
}

/** Inserts `at` after vertex `ref.vertex` (on the edge to the next vertex). */
export function insertVertex(polygons: readonly PolygonWithHoles[], ref: VertexRef, at: Vertex): PolygonWithHoles[] {
  return withRing(polygons, ref, (ring) => [...ring.slice(0, ref.vertex + 1), [at[0], at[1]], ...ring.slice(ref.vertex + 1)]);
}

/** A ring keeps at least three vertices: deleting below that is refused (returns the input). */
export function deleteVertex(polygons: readonly PolygonWithHoles[], ref: VertexRef): readonly PolygonWithHoles[] {
  const ring = polygons[ref.polygon] && ringOf(polygons[ref.polygon], ref.ring);
  if (!ring || ring.length <= 3) return polygons;
  return withRing(polygons, ref, (r) => r.filter((_, i) => i !== ref.vertex));
}

function distanceToSegment(p: Vertex, a: Vertex, b: Vertex): { distance: number; foot: Vertex } {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const length2 = dx * dx + dy * dy;
  const t = length2 === 0 ? 0 : Math.min(1, Math.max(0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length2));
  const foot: Vertex = [a[0] + t * dx, a[1] + t * dy];
  return { distance: Math.hypot(p[0] - foot[0], p[1] - foot[1]), foot };
}

/** The edge nearest to `p` within `maxDistance`: the vertex it starts at, and the foot of the perpendicular. */
export function nearestEdge(polygons: readonly PolygonWithHoles[], p: Vertex, maxDistance: number): { ref: VertexRef; foot: Vertex } | null {
  let best: { ref: VertexRef; foot: Vertex; distance: number } | null = null;
  polygons.forEach((polygon, pi) =>
    [polygon.outer, ...polygon.holes].forEach((ring, ri) => {
      for (let i = 0; i < ring.length; i++) {
        const hit = distanceToSegment(p, ring[i], ring[(i + 1) % ring.length]);
        if (hit.distance <= maxDistance && (!best || hit.distance < best.distance)) best = { ref: { polygon: pi, ring: ri, vertex: i }, foot: hit.foot, distance: hit.distance };
      }
    }),
  );
  return best ? { ref: (best as { ref: VertexRef }).ref, foot: (best as { foot: Vertex }).foot } : null;
}
