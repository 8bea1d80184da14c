import type { PolygonWithHoles, Vertex } from '../../engine/types';
import type { BoxGeometry } from '../../annotations/annotation';

/**
 * The handles of a box annotation: four corners and four edge midpoints. A corner moves the two
 * edges it joins, an edge handle its one edge; dragging past the opposite edge flips the box rather
 * than giving it a negative size.
 */
export type BoxHandle = 'nw' | 'n' | 'ne' | 'e' | 'se' | 's' | 'sw' | 'w';
export const BOX_HANDLES: readonly BoxHandle[] = ['nw', 'n', 'ne', 'e', 'se', 's', 'sw', 'w'];

/** Where a handle sits on the box. */
export function handlePoint([x, y, w, h]: BoxGeometry, handle: BoxHandle): Vertex {
  const hx = handle.includes('w') ? x : handle.includes('e') ? x + w : x + w / 2;
  const hy = handle.includes('n') ? y : handle.includes('s') ? y + h : y + h / 2;
  return [hx, hy];
}

/** The box with the handle dragged to `to`. */
export function resizeBox([x, y, w, h]: BoxGeometry, handle: BoxHandle, to: Vertex): BoxGeometry {
  let [left, top, right, bottom] = [x, y, x + w, y + h];
  if (handle.includes('w')) left = to[0];
  if (handle.includes('e')) right = to[0];
  if (handle.includes('n')) top = to[1];
  if (handle.includes('s')) bottom = to[1];
  return [Math.min(left, right), Math.min(top, bottom), Math.abs(right - left), Math.abs(bottom - top)];
}

/** The box as a polygon, for what draws and tests outlines (the canvas, the review zoom). */
export function boxPolygon([x, y, w, h]: BoxGeometry): PolygonWithHoles {
  return { outer: [[x, y], [x + w, y], [x + w, y + h], [x, y + h]], holes: [] };
}

export function boxContains([x, y, w, h]: BoxGeometry, at: Vertex): boolean {
  return at[0] >= x && at[0] <= x + w && at[1] >= y && at[1] <= y + h;
}
