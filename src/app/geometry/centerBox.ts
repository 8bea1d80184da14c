import type { BoxPrompt, Vertex } from '../../engine/types';

/**
 * The service's box is CENTER-anchored: the user presses at the center and drags out a corner.
 * The rectangle is symmetric about the press point, so half of its extent is the drag distance.
 */
export function boxFromCenterDrag(center: Vertex, corner: Vertex): BoxPrompt {
  return {
    x: center[0],
    y: center[1],
    width: 2 * Math.abs(corner[0] - center[0]),
    height: 2 * Math.abs(corner[1] - center[1]),
  };
}

/** Top-left corner and size, for drawing and for formats that are corner-anchored. */
export function boxToCornerRect(box: BoxPrompt): { left: number; top: number; width: number; height: number } {
  return { left: box.x - box.width / 2, top: box.y - box.height / 2, width: box.width, height: box.height };
}

/** Clamp a box to the image so the request stays within pixel coordinates >= 0. */
export function clampBoxToImage(box: BoxPrompt, imageWidth: number, imageHeight: number): BoxPrompt {
  const left = Math.max(0, box.x - box.width / 2);
  const top = Math.max(0, box.y - box.height / 2);
  const right = Math.min(imageWidth, box.x + box.width / 2);
  const bottom = Math.min(imageHeight, box.y + box.height / 2);
  const width = Math.max(0, right - left);
  const height = Math.max(0, bottom - top);
  return { x: left + width / 2, y: top + height / 2, width, height };
}

export function isBoxLargeEnough(box: BoxPrompt, minSide = 4): boolean {
  return box.width >= minSide && box.height >= minSide;
}

/**
 * Corner to corner, as CVAT and Label Studio draw: the same center-anchored box the API takes.
 * Midpoint and absolute extent are exact in floating point for the pixel coordinates we see.
 */
export function boxFromCorners(a: Vertex, b: Vertex): BoxPrompt {
  return { x: (a[0] + b[0]) / 2, y: (a[1] + b[1]) / 2, width: Math.abs(b[0] - a[0]), height: Math.abs(b[1] - a[1]) };
}

/** A drag from `anchor` to `to`, by the box setting: the anchor is the center, or (fromCorner) a corner. */
export function boxFromDrag(anchor: Vertex, to: Vertex, fromCorner: boolean): BoxPrompt {
  return fromCorner ? boxFromCorners(anchor, to) : boxFromCenterDrag(anchor, to);
}
