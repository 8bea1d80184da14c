import type { Ring, Vertex } from '../../engine/types';

/**
 * One ring through every part of a multi-part object, the way Ultralytics' COCO → YOLO converter
 * joins the polygons of one annotation (`merge_multi_segment`), so a YOLO-seg line is one instance:
 * neighbouring parts (in the order given) are linked at their two closest vertices; the walk goes
 * around the first part, out along the link to the second, part of the way round each middle part
 * to its next link, all the way round the last part, then back through the middle parts' remaining
 * arcs and links to where it started. Every link is walked once each way, so it has zero width and a
 * filled ring covers exactly the parts. (Unlike the converter, a middle part keeps its orientation.)
 */
export function joinParts(parts: readonly Ring[]): Ring {
  const rings = parts.filter((r) => r.length >= 3);
  if (rings.length <= 1) return rings[0]?.map(copy) ?? [];
  // Where part i is entered from part i-1, and where it leaves for part i+1.
  const entry: number[] = new Array(rings.length).fill(-1);
  const exit: number[] = new Array(rings.length).fill(-1);
  for (let i = 1; i < rings.length; i++) {
    const [a, b] = closestVertices(rings[i - 1], rings[i]);
    exit[i - 1] = a;
    entry[i] = b;
  }
  const last = rings.length - 1;
  const out: Ring = [];
  // Around the first part from its exit back to its exit.
  out.push(...loopFrom(rings[0], exit[0]));
  for (let i = 1; i < last; i++) out.push(...arc(rings[i], entry[i], exit[i]));
  out.push(...loopFrom(rings[last], entry[last]));
  for (let i = last - 1; i >= 1; i--) out.push(...arc(rings[i], exit[i], entry[i], true));
  return out;
}

const copy = (v: Vertex): Vertex => [v[0], v[1]];

function closestVertices(a: Ring, b: Ring): [number, number] {
  let best: [number, number] = [0, 0];
  let distance = Infinity;
  for (let i = 0; i < a.length; i++) {
    for (let j = 0; j < b.length; j++) {
      const d = (a[i][0] - b[j][0]) ** 2 + (a[i][1] - b[j][1]) ** 2;
      if (d < distance) {
        distance = d;
        best = [i, j];
      }
    }
  }
  return best;
}

/** Every vertex from `start` round to `start` again (closed: the start vertex twice). */
function loopFrom(ring: Ring, start: number): Ring {
  const out: Ring = [];
  for (let k = 0; k <= ring.length; k++) out.push(copy(ring[(start + k) % ring.length]));
  return out;
}

/** The vertices from `from` to `to` inclusive, going forward round the ring; `whole` when from = to means once round. */
function arc(ring: Ring, from: number, to: number, whole = false): Ring {
  const out: Ring = [];
  const steps = (to - from + ring.length) % ring.length || (whole ? ring.length : 0);
  for (let k = 0; k <= steps; k++) out.push(copy(ring[(from + k) % ring.length]));
  return out;
}
