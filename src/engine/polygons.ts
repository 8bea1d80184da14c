/**
 * Binary mask ⇄ polygons in image-pixel coordinates.
 *
 * Tracing follows pixel edges ("crack following"): every ring runs along the boundary between set and
 * unset pixels, with vertices on pixel corners, so before simplification re-rasterizing a ring at
 * pixel centers reproduces the mask exactly. Foreground is 4-connected (diagonal touches are separate
 * parts), background 8-connected; at a saddle corner the walk turns so as to stay with the pixel it
 * is hugging, which makes that rule hold. Each part gets its outer ring (clockwise on screen, y down)
 * and its holes (counter-clockwise), grouped by a connected-component labelling.
 *
 * The corner rings are turned into marching-squares rings through edge midpoints (see
 * `cornersToMidpoints`), still exact, then simplified with Douglas–Peucker at `tolerance` pixels. The default tolerance keeps
 * re-rasterized IoU ≥ 0.98 on real SAM masks and on small synthetic shapes (see polygons.test.ts).
 */
import type { BinaryMask, PolygonWithHoles, Ring, Vertex } from './types';
import { pixelIoU } from './iou';
import { DEFAULT_SEGMENTATION_OPTIONS, speckArea, type OutlineOptions } from './options';

export { maskIoU } from './iou';

export function maskPixelCount(mask: BinaryMask): number {
  let n = 0;
  for (let i = 0; i < mask.data.length; i++) if (mask.data[i]) n++;
  return n;
}

export interface MaskToPolygonOptions {
  /** Douglas–Peucker tolerance in pixels (default: the segmentation options' default); 0 keeps every corner of the traced staircase (minus collinear points). */
  tolerance?: number;
  /** Parts (and holes) with fewer pixels than this are dropped. Default 0: keep everything. */
  minArea?: number;
}

/** 4-connected component labels (0 = background), by a two-pass union-find. */
export function labelComponents(mask: BinaryMask): { labels: Int32Array; count: number } {
  const { width: w, height: h, data } = mask;
  const labels = new Int32Array(w * h);
  const parent: number[] = [0];
  const find = (a: number): number => {
    while (parent[a] !== a) {
      parent[a] = parent[parent[a]];
      a = parent[a];
    }
    return a;
  };
  let next = 1;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (!data[i]) continue;
      const left = x > 0 ? labels[i - 1] : 0;
      const up = y > 0 ? labels[i - w] : 0;
      if (left && up) {
        const a = find(left);
        const b = find(up);
        labels[i] = a < b ? a : b;
        if (a !== b) parent[a < b ? b : a] = a < b ? a : b;
      } else if (left || up) {
        labels[i] = left || up;
      } else {
        parent.push(next);
        labels[i] = next++;
      }
    }
  }
  // Compact to 1..count.
  const compact = new Int32Array(next);
  let count = 0;
  for (let l = 1; l < next; l++) {
    const root = find(l);
    if (!compact[root]) compact[root] = ++count;
    compact[l] = compact[root];
  }
  for (let i = 0; i < labels.length; i++) if (labels[i]) labels[i] = compact[labels[i]];
  return { labels, count };
}

/** Twice the signed area (shoelace); positive for clockwise rings on screen (y down). */
export function signedArea2(ring: readonly Vertex[]): number {
  let s = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) s += ring[j][0] * ring[i][1] - ring[i][0] * ring[j][1];
  return s;
}

const DX = [1, 0, -1, 0]; // E, S, W, N (y down)
const DY = [0, 1, 0, -1];

/**
 * Traces every boundary ring. Walking with the set pixels on the right-hand side; a ring is recorded
 * by its corner vertices only (direction changes).
 */
function traceRings(mask: BinaryMask): { ring: Ring; pixel: number }[] {
  const { width: w, height: h, data } = mask;
  const at = (x: number, y: number): number => (x >= 0 && y >= 0 && x < w && y < h ? data[y * w + x] : 0);
  // Visited top edges (the only edges we start from): a pixel's top edge walked eastwards.
  const visitedTop = new Uint8Array(w * h);
  const rings: { ring: Ring; pixel: number }[] = [];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (!data[i] || visitedTop[i] || at(x, y - 1)) continue;
      const ring: Ring = [];
      let vx = x;
      let vy = y;
      let d = 0; // heading east along the top edge of (x, y)
      const startX = vx;
      const startY = vy;
      do {
        if (d === 0) visitedTop[vy * w + vx] = 1; // edge from (vx,vy) east is the top edge of pixel (vx,vy)
        vx += DX[d];
        vy += DY[d];
        // Pixels ahead-left and ahead-right of vertex (vx, vy) when heading d.
        const r = (d + 1) & 3;
        const l = (d + 3) & 3;
        const arX = vx + ((DX[d] + DX[r] - 1) >> 1);
        const arY = vy + ((DY[d] + DY[r] - 1) >> 1);
        const alX = vx + ((DX[d] + DX[l] - 1) >> 1);
        const alY = vy + ((DY[d] + DY[l] - 1) >> 1);
        let nd: number;
        if (!at(arX, arY)) nd = r;
        else if (at(alX, alY)) nd = l;
        else nd = d;
        if (nd !== d) ring.push([vx, vy]);
        d = nd;
      } while (!(vx === startX && vy === startY && d === 0));
      rings.push({ ring, pixel: i });
    }
  }
  return rings;
}

function perpendicularDistanceSq(p: Vertex, a: Vertex, b: Vertex): number {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const len2 = dx * dx + dy * dy;
  if (len2 === 0) return (p[0] - a[0]) ** 2 + (p[1] - a[1]) ** 2;
  const cross = (p[0] - a[0]) * dy - (p[1] - a[1]) * dx;
  return (cross * cross) / len2;
}

/** Douglas–Peucker on an open chain, iterative; returns kept flags. */
function simplifyChain(points: readonly Vertex[], first: number, last: number, tolSq: number, keep: Uint8Array): void {
  const stack: [number, number][] = [[first, last]];
  while (stack.length) {
    const [a, b] = stack.pop()!;
    let maxD = -1;
    let idx = -1;
    for (let i = a + 1; i < b; i++) {
      const d = perpendicularDistanceSq(points[i], points[a], points[b]);
      if (d > maxD) {
        maxD = d;
        idx = i;
      }
    }
    if (idx !== -1 && maxD > tolSq) {
      keep[idx] = 1;
      stack.push([a, idx], [idx, b]);
    }
  }
}

/**
 * Crack ring (pixel corners) → the marching-squares ring through the midpoints of the boundary edges:
 * each straight run A→B keeps A+½ and B−½ along its direction, and corners are cut diagonally. Pixel
 * centers never lie on the cuts, so rasterizing still reproduces the mask exactly, while a 45° staircase
 * becomes one straight line, which lets the simplification remove far more vertices at a given error.
 */
export function cornersToMidpoints(ring: Ring): Ring {
  const out: Ring = [];
  const n = ring.length;
  for (let i = 0; i < n; i++) {
    const [ax, ay] = ring[i];
    const [bx, by] = ring[(i + 1) % n];
    const dx = Math.sign(bx - ax) * 0.5;
    const dy = Math.sign(by - ay) * 0.5;
    const length = Math.abs(bx - ax) + Math.abs(by - ay);
    out.push([ax + dx, ay + dy]);
    if (length > 1) out.push([bx - dx, by - dy]);
  }
  return removeCollinear(out);
}

function removeCollinear(ring: Ring): Ring {
  const n = ring.length;
  if (n < 4) return ring;
  const out: Ring = [];
  for (let i = 0; i < n; i++) {
    const p = ring[(i + n - 1) % n];
    const c = ring[i];
    const q = ring[(i + 1) % n];
    const cross = (c[0] - p[0]) * (q[1] - c[1]) - (c[1] - p[1]) * (q[0] - c[0]);
    if (cross !== 0) out.push(c);
  }
  return out.length >= 3 ? out : ring;
}

/** Douglas–Peucker on a closed ring: split at the vertex farthest from the first one. */
export function simplifyRing(ring: Ring, tolerance: number): Ring {
  const n = ring.length;
  if (tolerance <= 0 || n <= 4) return ring;
  let far = 0;
  let farD = -1;
  for (let i = 1; i < n; i++) {
    const d = (ring[i][0] - ring[0][0]) ** 2 + (ring[i][1] - ring[0][1]) ** 2;
    if (d > farD) {
      farD = d;
      far = i;
    }
  }
  const closed = [...ring, ring[0]];
  const keep = new Uint8Array(n + 1);
  keep[0] = 1;
  keep[far] = 1;
  keep[n] = 1;
  const tolSq = tolerance * tolerance;
  simplifyChain(closed, 0, far, tolSq, keep);
  simplifyChain(closed, far, n, tolSq, keep);
  const out: Ring = [];
  for (let i = 0; i < n; i++) if (keep[i]) out.push(ring[i]);
  // A ring that collapses (tiny specks) keeps its exact staircase instead.
  return out.length >= 3 && Math.abs(signedArea2(out)) > 0 ? out : ring;
}

/** Each part's re-rasterization must reach this IoU with the part, or it is simplified less. */
export const PART_IOU_TARGET = 0.99;

interface Bounds {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

function ringBounds(ring: readonly Vertex[]): Bounds {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const [x, y] of ring) {
    if (x < x0) x0 = x;
    if (y < y0) y0 = y;
    if (x > x1) x1 = x;
    if (y > y1) y1 = y;
  }
  return { x0, y0, x1, y1 };
}

/** Even-odd point-in-ring test; callers only pass points that never lie on the ring (pixel centers). */
function ringContains(ring: readonly Vertex[], px: number, py: number): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i];
    const [xj, yj] = ring[j];
    if (yi > py !== yj > py && px < xj + ((py - yj) / (yi - yj)) * (xi - xj)) inside = !inside;
  }
  return inside;
}

function ringLength(ring: readonly Vertex[]): number {
  let length = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) length += Math.hypot(ring[i][0] - ring[j][0], ring[i][1] - ring[j][1]);
  return length;
}

/**
 * Simplifies one part with error control: Douglas–Peucker at `tolerance`, then the part is
 * re-rasterized in its bounding box and compared with its exact rings (which reproduce the part's
 * pixels exactly); below PART_IOU_TARGET the tolerance is halved, down to the exact rings. Small
 * parts thus keep their shape while large ones get few vertices.
 */
function simplifyPart(exact: PolygonWithHoles, pixelArea: number, tolerance: number, width: number, height: number): PolygonWithHoles {
  if (tolerance <= 0) return exact;
  // Douglas–Peucker keeps every removed point within `tol` of the new edges, so at most a strip of
  // width tol + 1 along the boundary can change pixels. When that strip is below the IoU budget the
  // check is skipped: it matters for small parts, and large ones would pay a full-window raster.
  const perimeter = [exact.outer, ...exact.holes].reduce((sum, ring) => sum + ringLength(ring), 0);
  if ((tolerance + 1) * perimeter <= (1 - PART_IOU_TARGET) * pixelArea) {
    return { outer: simplifyRing(exact.outer, tolerance), holes: exact.holes.map((hole) => simplifyRing(hole, tolerance)) };
  }
  const b = ringBounds(exact.outer);
  const margin = Math.ceil(tolerance) + 1;
  const x0 = Math.max(0, Math.floor(b.x0) - margin);
  const y0 = Math.max(0, Math.floor(b.y0) - margin);
  const w = Math.min(width, Math.ceil(b.x1) + margin) - x0;
  const h = Math.min(height, Math.ceil(b.y1) + margin) - y0;
  let reference: Uint8Array | undefined;
  for (let tol = tolerance; tol > 0.1; tol /= 2) {
    const candidate = { outer: simplifyRing(exact.outer, tol), holes: exact.holes.map((hole) => simplifyRing(hole, tol)) };
    if (candidate.outer === exact.outer && candidate.holes.every((hole, i) => hole === exact.holes[i])) return exact;
    reference ??= rasterizeWindow([exact], x0, y0, w, h);
    if (pixelIoU(rasterizeWindow([candidate], x0, y0, w, h), reference) >= PART_IOU_TARGET) return candidate;
  }
  return exact;
}

export function maskToPolygons(mask: BinaryMask, options: MaskToPolygonOptions = {}): PolygonWithHoles[] {
  const tolerance = options.tolerance ?? DEFAULT_SEGMENTATION_OPTIONS.tolerance;
  const minArea = options.minArea ?? 0;
  if (mask.data.length !== mask.width * mask.height) throw new RangeError('mask data length ≠ width × height');
  const outers: { ring: Ring; area: number; bounds: Bounds; holes: Ring[] }[] = [];
  const holes: { ring: Ring; pixel: number }[] = [];
  for (const traced of traceRings(mask)) {
    const area = signedArea2(traced.ring) / 2;
    if (Math.abs(area) < minArea) continue;
    if (area > 0) outers.push({ ring: traced.ring, area, bounds: ringBounds(traced.ring), holes: [] });
    else holes.push(traced);
  }
  // A hole belongs to the smallest outer ring around it. The probe is the center of the background
  // pixel above the hole's first traced edge: inside the hole, never on a ring.
  for (const hole of holes) {
    const px = (hole.pixel % mask.width) + 0.5;
    const py = Math.floor(hole.pixel / mask.width) - 0.5;
    let owner: (typeof outers)[number] | undefined;
    for (const outer of outers) {
      const { x0, y0, x1, y1 } = outer.bounds;
      if (px < x0 || px > x1 || py < y0 || py > y1) continue;
      if ((!owner || outer.area < owner.area) && ringContains(outer.ring, px, py)) owner = outer;
    }
    owner?.holes.push(hole.ring);
  }
  return outers.map((outer) => {
    const pixelArea = outer.area + outer.holes.reduce((sum, hole) => sum + signedArea2(hole) / 2, 0);
    const exact = { outer: cornersToMidpoints(outer.ring), holes: outer.holes.map(cornersToMidpoints) };
    return simplifyPart(exact, pixelArea, tolerance, mask.width, mask.height);
  });
}

/**
 * The outline the product shows and serves for a mask: `maskToPolygons` at the options' tolerance
 * with the specks dropped (`speckArea`); options left out take the segmentation defaults. `area` is
 * the mask's pixel count when the caller has it already.
 */
export function maskOutline(mask: BinaryMask, options: Partial<OutlineOptions> & { area?: number } = {}): PolygonWithHoles[] {
  const minArea = speckArea(options.area ?? maskPixelCount(mask), options.speckFraction);
  return maskToPolygons(mask, { tolerance: options.tolerance, minArea });
}

/** The API's `masks`: the outer ring of each part as [x, y] pairs (holes stay in the engine's representation). */
export function outerRings(polygons: readonly PolygonWithHoles[]): [number, number][][] {
  return polygons.map((p) => p.outer.map(([x, y]) => [x, y] as [number, number]));
}

/**
 * Fills polygons at pixel centers (nonzero winding with outer rings counted +1 and holes −1 whatever
 * their stored orientation), the inverse of `maskToPolygons`.
 */
export function rasterizePolygons(polygons: readonly PolygonWithHoles[], width: number, height: number): BinaryMask {
  return { width, height, data: rasterizeWindow(polygons, 0, 0, width, height) };
}

/** Rasterizes the window [originX, originX + width) × [originY, originY + height) of the image plane. */
function rasterizeWindow(polygons: readonly PolygonWithHoles[], originX: number, originY: number, width: number, height: number): Uint8Array {
  const data = new Uint8Array(width * height);
  type Edge = { top: number; bottom: number; x0: number; y0: number; slope: number; winding: number };
  const edges: Edge[] = [];
  const addRing = (ring: readonly Vertex[], sign: number) => {
    if (ring.length < 3) return;
    const orientation = signedArea2(ring) >= 0 ? 1 : -1;
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const [xa, ya] = ring[j];
      const [xb, yb] = ring[i];
      if (ya === yb) continue;
      // A clockwise (screen) ring goes up on its left side: crossing an upward edge left to right
      // enters the ring. Normalized so a ring's interior accumulates `sign` whatever its orientation.
      const up = yb < ya ? 1 : -1;
      edges.push({ top: Math.min(ya, yb), bottom: Math.max(ya, yb), x0: xa, y0: ya, slope: (xb - xa) / (yb - ya), winding: up * orientation * sign });
    }
  };
  for (const p of polygons) {
    addRing(p.outer, 1);
    for (const hole of p.holes) addRing(hole, -1);
  }
  edges.sort((e, f) => e.top - f.top);
  let active: Edge[] = [];
  let nextEdge = 0;
  const crossings: { x: number; w: number }[] = [];
  for (let y = 0; y < height; y++) {
    const cy = originY + y + 0.5;
    while (nextEdge < edges.length && edges[nextEdge].top <= cy) active.push(edges[nextEdge++]);
    active = active.filter((e) => e.bottom > cy);
    if (active.length === 0) continue;
    crossings.length = 0;
    for (const e of active) {
      if (e.top > cy) continue;
      crossings.push({ x: e.x0 + (cy - e.y0) * e.slope - originX, w: e.winding });
    }
    crossings.sort((a, b) => a.x - b.x);
    let winding = 0;
    for (let k = 0; k < crossings.length - 1; k++) {
      winding += crossings[k].w;
      if (winding <= 0) continue;
      // Pixels whose centers lie in [x_k, x_{k+1}).
      const from = Math.max(0, Math.ceil(crossings[k].x - 0.5));
      const to = Math.min(width, Math.ceil(crossings[k + 1].x - 0.5));
      if (to > from) data.fill(1, y * width + from, y * width + to);
    }
  }
  return data;
}

