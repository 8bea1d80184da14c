/**
 * COCO ground truth → binary masks: polygon lists and run-length encodings (the uncompressed
 * `counts: number[]` of crowd regions and the compressed string form), column-major as COCO stores them.
 */
import type { BinaryMask } from '../../src/engine/types';

export type CocoSegmentation = number[][] | { counts: number[] | string; size: [number, number] };

/**
 * Fills polygons given as flat [x0, y0, x1, y1, ...] lists. A pixel is inside when its centre
 * (x + 0.5, y + 0.5) is inside under the even-odd rule; parts of one annotation are OR-ed.
 */
export function rasterizeCocoPolygons(polygons: readonly (readonly number[])[], width: number, height: number): BinaryMask {
  const data = new Uint8Array(width * height);
  for (const flat of polygons) {
    const n = Math.floor(flat.length / 2);
    if (n < 3) continue;
    const part = new Uint8Array(width * height);
    let minY = Infinity;
    let maxY = -Infinity;
    for (let i = 0; i < n; i++) {
      minY = Math.min(minY, flat[2 * i + 1]);
      maxY = Math.max(maxY, flat[2 * i + 1]);
    }
    const y0 = Math.max(0, Math.floor(minY - 0.5));
    const y1 = Math.min(height - 1, Math.ceil(maxY));
    const crossings: number[] = [];
    for (let y = y0; y <= y1; y++) {
      const cy = y + 0.5;
      crossings.length = 0;
      for (let i = 0; i < n; i++) {
        const ax = flat[2 * i];
        const ay = flat[2 * i + 1];
        const bx = flat[2 * ((i + 1) % n)];
        const by = flat[2 * ((i + 1) % n) + 1];
        // Half-open rule: an edge counts when the scanline passes in [min y, max y).
        if ((ay <= cy && by > cy) || (by <= cy && ay > cy)) crossings.push(ax + ((cy - ay) / (by - ay)) * (bx - ax));
      }
      crossings.sort((a, b) => a - b);
      for (let k = 0; k + 1 < crossings.length; k += 2) {
        // Pixels whose centre x + 0.5 lies in [left, right).
        const from = Math.max(0, Math.ceil(crossings[k] - 0.5));
        const to = Math.min(width - 1, Math.ceil(crossings[k + 1] - 0.5) - 1);
        for (let x = from; x <= to; x++) part[y * width + x] ^= 1;
      }
    }
    for (let i = 0; i < data.length; i++) data[i] |= part[i];
  }
  return { width, height, data };
}

/** Decodes COCO's compressed RLE string (the engine's codec, the one the exports use). */
export { decodeRunsString as decodeRleString } from '../../src/annotations/rle';
import { decodeRunsString as decodeRleString } from '../../src/annotations/rle';

/** Runs alternate background/foreground, starting with background, over the image in column-major order. */
export function rasterizeRle(counts: readonly number[] | string, height: number, width: number): BinaryMask {
  const runs = typeof counts === 'string' ? decodeRleString(counts) : counts;
  const data = new Uint8Array(width * height);
  let pos = 0;
  let value = 0;
  for (const run of runs) {
    if (value) {
      for (let i = pos; i < pos + run && i < width * height; i++) {
        const x = Math.floor(i / height);
        const y = i - x * height;
        data[y * width + x] = 1;
      }
    }
    pos += run;
    value ^= 1;
  }
  return { width, height, data };
}

export function rasterizeSegmentation(segmentation: CocoSegmentation, width: number, height: number): BinaryMask {
  if (Array.isArray(segmentation)) return rasterizeCocoPolygons(segmentation, width, height);
  const [h, w] = segmentation.size;
  if (h !== height || w !== width) throw new Error(`RLE size ${w}x${h} does not match the image ${width}x${height}`);
  return rasterizeRle(segmentation.counts, h, w);
}
