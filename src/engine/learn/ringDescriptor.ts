/**
 * The `ring` descriptor: how a region's SAM cells compare with those just outside it (issue 37).
 *
 * Every other kind describes what lies inside the region, and a raccoon's head, the raccoon, and the
 * raccoon with the sofa around it all look like a raccoon from inside. What tells them apart is the
 * edge: a part continues past its edge (the cells just outside look like those inside), a whole object
 * ends there (outside is something else), and a region holding the object with its surroundings has
 * surroundings along its own border (the band just inside the edge differs from its middle and looks
 * like what lies outside). Three class-agnostic numbers, so that ten photos of decisions can weigh them
 * (the overlap ranker does, from the person's accepts and rejects):
 *
 * [cos(inside, ring), cos(border band, ring), cos(middle, border band)]
 *
 * inside: the mean cell vector over the region's box; ring: over the band around the box, a quarter of
 * the box's side wide (at least one cell), the part of it on the photo; border band: the outer quarter
 * of the box on each side; middle: the box less its border band. A cosine with nothing to compare
 * (no ring on the photo: a whole-photo region) is 0. A fourth number, the share of the ring on the
 * photo, was measured and dropped (docs/RESULTS.md, h37-ring).
 *
 * Read on the mask's box, as the `fit` kind is: a box is what the product has for every region,
 * including one a person drew, and what the learn eval's caches keep.
 */
import type { CornerBox } from '../text/detector';
import { CELL, geometry, GRID } from '../text/similar';
import type { SamCells } from './descriptors';

export const RING_LENGTH = 3;
/** The ring's width and the border band's depth, as a share of the box's side on each axis. */
const EDGE_SHARE = 0.25;

interface CellBox {
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
}

/** Area of the unit cell (column q, row r) inside `b`. */
function cellOverlap(b: CellBox, q: number, r: number): number {
  const w = Math.min(q + 1, b.x1) - Math.max(q, b.x0);
  const h = Math.min(r + 1, b.y1) - Math.max(r, b.y0);
  return w > 0 && h > 0 ? w * h : 0;
}

function grown(b: CellBox, dx: number, dy: number): CellBox {
  return { x0: b.x0 - dx, y0: b.y0 - dy, x1: b.x1 + dx, y1: b.y1 + dy };
}

function cosine(a: Float64Array, b: Float64Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let c = 0; c < a.length; c++) {
    dot += a[c] * b[c];
    na += a[c] * a[c];
    nb += b[c] * b[c];
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}

export function ringDescriptor(cells: SamCells, box: CornerBox): number[] {
  const g = geometry(cells.width, cells.height);
  const toCells = g.scale / CELL;
  const inside: CellBox = { x0: box.x0 * toCells, y0: box.y0 * toCells, x1: box.x1 * toCells, y1: box.y1 * toCells };
  const dx = Math.max(1, EDGE_SHARE * (inside.x1 - inside.x0));
  const dy = Math.max(1, EDGE_SHARE * (inside.y1 - inside.y0));
  const outer = grown(inside, dx, dy);
  const middle = grown(inside, -EDGE_SHARE * (inside.x1 - inside.x0), -EDGE_SHARE * (inside.y1 - inside.y0));
  const sums = { inside: new Float64Array(cells.channels), ring: new Float64Array(cells.channels), band: new Float64Array(cells.channels), middle: new Float64Array(cells.channels) };
  for (let r = Math.max(0, Math.floor(outer.y0)); r < Math.min(g.rows, Math.ceil(outer.y1)); r++) {
    for (let q = Math.max(0, Math.floor(outer.x0)); q < Math.min(g.cols, Math.ceil(outer.x1)); q++) {
      const wInside = cellOverlap(inside, q, r);
      const wRing = cellOverlap(outer, q, r) - wInside;
      const wMiddle = middle.x1 > middle.x0 && middle.y1 > middle.y0 ? cellOverlap(middle, q, r) : 0;
      const wBand = wInside - wMiddle;
      const vector = cells.cell(r * GRID + q);
      for (let c = 0; c < cells.channels; c++) {
        const v = vector[c];
        sums.inside[c] += wInside * v;
        sums.ring[c] += wRing * v;
        sums.band[c] += wBand * v;
        sums.middle[c] += wMiddle * v;
      }
    }
  }
  return [cosine(sums.inside, sums.ring), cosine(sums.band, sums.ring), cosine(sums.middle, sums.band)];
}
