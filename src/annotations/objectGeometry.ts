import { speckArea } from '../engine/options';
import type { BinaryMask, PolygonWithHoles, Ring, Vertex } from '../engine/types';
import { boundsOf, signedRingArea } from './polygon';
import type { Annotation, BoxGeometry } from './annotation';
import { fillPolygons } from './rasterize';

/**
 * The one rule of what an exported object is. Every format writes these four things and nothing
 * else, so they cannot disagree: the object's outline (its `polygons`, what the canvas draws) clipped
 * to the image, with parts too small to be more than specks dropped (the engine's speck rule, so a
 * hand-drawn outline and a traced one obey the same rule); the mask is that outline filled, so the
 * mask's own specks — pixels the outline left out — are gone too; the box is the outline's box; the
 * area is the filled outline's pixel count.
 */
export interface ObjectGeometry {
  /** Parts inside [0, width] × [0, height], coordinates rounded to `COORDINATE_DIGITS` decimals. */
  readonly polygons: PolygonWithHoles[];
  /** The polygons filled at pixel centres, even-odd. */
  readonly mask: BinaryMask;
  /** [x, y, width, height] of the polygons' outer rings. */
  readonly bbox: [number, number, number, number];
  /** Pixels of `mask`. */
  readonly area: number;
}

/** Coordinates are written with two decimals: the box and the area are taken after the rounding. */
export const COORDINATE_DIGITS = 2;
const round = (n: number) => Math.round(n * 100) / 100;

/** Sutherland–Hodgman against one half-plane; `inside(v)` and `cut(a, b)` describe the edge. */
function clipAgainst(ring: Ring, inside: (v: Vertex) => boolean, cut: (a: Vertex, b: Vertex) => Vertex): Ring {
  const out: Ring = [];
  for (let i = 0; i < ring.length; i++) {
    const current = ring[i];
    const previous = ring[(i + ring.length - 1) % ring.length];
    const inCurrent = inside(current);
    if (inCurrent !== inside(previous)) out.push(cut(previous, current));
    if (inCurrent) out.push(current);
  }
  return out;
}

/**
 * A ring clipped to the rectangle [0, width] × [0, height]. A concave ring that leaves the image and
 * comes back gets zero-width runs along the edge; they cover no pixel, so the fill is unchanged.
 */
export function clipRing(ring: readonly Vertex[], width: number, height: number): Ring {
  const atX = (x: number) => (a: Vertex, b: Vertex): Vertex => [x, a[1] + ((x - a[0]) * (b[1] - a[1])) / (b[0] - a[0])];
  const atY = (y: number) => (a: Vertex, b: Vertex): Vertex => [a[0] + ((y - a[1]) * (b[0] - a[0])) / (b[1] - a[1]), y];
  let out: Ring = ring.map((v) => [v[0], v[1]]);
  out = clipAgainst(out, (v) => v[0] >= 0, atX(0));
  out = clipAgainst(out, (v) => v[0] <= width, atX(width));
  out = clipAgainst(out, (v) => v[1] >= 0, atY(0));
  out = clipAgainst(out, (v) => v[1] <= height, atY(height));
  return withoutRepeats(out.map(([x, y]) => [round(x), round(y)]));
}

function withoutRepeats(ring: Ring): Ring {
  const out = ring.filter((v, i) => {
    const previous = ring[(i + ring.length - 1) % ring.length];
    return ring.length === 1 || v[0] !== previous[0] || v[1] !== previous[1];
  });
  return out.length >= 3 && signedRingArea(out) !== 0 ? out : [];
}

function clipPolygon(polygon: PolygonWithHoles, width: number, height: number): PolygonWithHoles | null {
  const outer = clipRing(polygon.outer, width, height);
  if (outer.length === 0) return null;
  return { outer, holes: polygon.holes.map((h) => clipRing(h, width, height)).filter((h) => h.length > 0) };
}

/** Pixels a polygon covers, counted in its own box. */
function pixelCount(polygon: PolygonWithHoles): number {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const [x, y] of polygon.outer) {
    x0 = Math.min(x0, x);
    y0 = Math.min(y0, y);
    x1 = Math.max(x1, x);
    y1 = Math.max(y1, y);
  }
  const left = Math.floor(x0);
  const top = Math.floor(y0);
  const w = Math.ceil(x1) - left;
  const h = Math.ceil(y1) - top;
  if (w <= 0 || h <= 0) return 0;
  const shift = (r: Ring): Ring => r.map(([x, y]) => [x - left, y - top]);
  const data = new Uint8Array(w * h);
  fillPolygons(data, w, h, [{ outer: shift(polygon.outer), holes: polygon.holes.map(shift) }], 1);
  let n = 0;
  for (let i = 0; i < data.length; i++) n += data[i];
  return n;
}

/** The object's exported geometry, or null when nothing of it lies in the image. */
export function objectGeometry(object: Pick<Annotation, 'polygons'>, width: number, height: number, speckFraction?: number): ObjectGeometry | null {
  const clipped = object.polygons.map((p) => clipPolygon(p, width, height)).filter((p): p is PolygonWithHoles => p !== null);
  const counts = clipped.map(pixelCount);
  const total = counts.reduce((a, b) => a + b, 0);
  const minimum = Math.max(1, speckArea(total, speckFraction));
  const polygons = clipped.filter((_, i) => counts[i] >= minimum);
  if (polygons.length === 0) return null;
  const data = new Uint8Array(width * height);
  fillPolygons(data, width, height, polygons, 1);
  let area = 0;
  for (let i = 0; i < data.length; i++) area += data[i];
  if (area === 0) return null;
  return { polygons, mask: { width, height, data }, bbox: polygonBox(polygons), area };
}

function polygonBox(polygons: readonly PolygonWithHoles[]): [number, number, number, number] {
  // Called only for outlines that filled at least one pixel, so there is a box.
  const { left, top, width, height } = boundsOf(polygons)!;
  return [left, top, round(width), round(height)];
}

/**
 * A box's exported geometry: its rectangle clipped to the image (coordinates rounded as outlines
 * are). `polygons` and `mask` are the rectangle's, for what needs pixels of it (a cut-out); `area` is
 * width × height, COCO's area of a box; null when nothing of it lies in the image.
 */
export function boxGeometry(box: BoxGeometry, width: number, height: number): ObjectGeometry | null {
  const left = round(Math.min(width, Math.max(0, box[0])));
  const top = round(Math.min(height, Math.max(0, box[1])));
  const right = round(Math.min(width, Math.max(0, box[0] + box[2])));
  const bottom = round(Math.min(height, Math.max(0, box[1] + box[3])));
  if (right <= left || bottom <= top) return null;
  const polygons: PolygonWithHoles[] = [{ outer: [[left, top], [right, top], [right, bottom], [left, bottom]], holes: [] }];
  const data = new Uint8Array(width * height);
  fillPolygons(data, width, height, polygons, 1);
  const boxWidth = round(right - left);
  const boxHeight = round(bottom - top);
  return { polygons, mask: { width, height, data }, bbox: [left, top, boxWidth, boxHeight], area: round(boxWidth * boxHeight) };
}
