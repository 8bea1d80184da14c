import { maskBounds } from '../../engine/bounds';
import type { BinaryMask, Vertex } from '../../engine/types';

/**
 * Brush and eraser strokes on a full-resolution binary mask. A stroke is the union of round dabs
 * swept along its path (every pixel whose centre lies within `radius` of a segment), so a fast
 * drag leaves no gaps between mouse events. Returns a new mask; the input is never changed.
 */
export function paintStroke(mask: BinaryMask, path: readonly Vertex[], radius: number, value: 0 | 1): BinaryMask {
  const data = new Uint8Array(mask.data);
  const { width, height } = mask;
  const r = Math.max(0.5, radius);
  const r2 = r * r;
  const segments = path.length === 1 ? [[path[0], path[0]] as const] : path.slice(1).map((b, i) => [path[i], b] as const);
  for (const [a, b] of segments) {
    const x0 = Math.max(0, Math.floor(Math.min(a[0], b[0]) - r));
    const x1 = Math.min(width - 1, Math.ceil(Math.max(a[0], b[0]) + r));
    const y0 = Math.max(0, Math.floor(Math.min(a[1], b[1]) - r));
    const y1 = Math.min(height - 1, Math.ceil(Math.max(a[1], b[1]) + r));
    const dx = b[0] - a[0];
    const dy = b[1] - a[1];
    const length2 = dx * dx + dy * dy;
    for (let y = y0; y <= y1; y++) {
      const cy = y + 0.5;
      for (let x = x0; x <= x1; x++) {
        const cx = x + 0.5;
        const t = length2 === 0 ? 0 : Math.min(1, Math.max(0, ((cx - a[0]) * dx + (cy - a[1]) * dy) / length2));
        const ex = cx - (a[0] + t * dx);
        const ey = cy - (a[1] + t * dy);
        if (ex * ex + ey * ey <= r2) data[y * width + x] = value;
      }
    }
  }
  return { width, height, data };
}

export function emptyMask(width: number, height: number): BinaryMask {
  return { width, height, data: new Uint8Array(width * height) };
}

/** The engine's own pixel count and IoU, under the names the studio uses. */
export { maskPixelCount as maskArea, maskIoU } from '../../engine/polygons';

/** Pixel bounds [left, top, width, height] of the set pixels; null for an empty mask. */
export function maskBox(mask: BinaryMask): [number, number, number, number] | null {
  const bounds = maskBounds(mask.data, mask.width, mask.height);
  return bounds ? [bounds.x0, bounds.y0, bounds.x1 - bounds.x0 + 1, bounds.y1 - bounds.y0 + 1] : null;
}

/** Union (merge) of masks of the same size. */
export function unionMasks(masks: readonly BinaryMask[]): BinaryMask {
  const [first] = masks;
  const data = new Uint8Array(first.data.length);
  for (const m of masks) for (let i = 0; i < data.length; i++) if (m.data[i]) data[i] = 1;
  return { width: first.width, height: first.height, data };
}
