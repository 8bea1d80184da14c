/**
 * 256×256 low-resolution logits (over the padded 1024 frame) → binary mask at the original image
 * resolution, thresholded at 0.
 *
 * SAM upsamples 256 → 1024 (bilinear, half-pixel centers), crops the padding, then resizes to the
 * original size. Both steps are folded into one bilinear sample per pixel here, done separably: each
 * needed low-res row is first interpolated to the output width, then output rows blend two of those.
 * That is far cheaper than the decoder's in-graph resize, which the engine does not fetch.
 */
import { maskBounds, type PixelBounds } from './bounds';
import { LOW_RES_SIZE, MODEL_SIZE, type ModelFrame } from './frame';
import type { BinaryMask } from './types';

interface AxisMap {
  readonly i0: Int32Array;
  readonly i1: Int32Array;
  readonly w1: Float32Array;
}

/** Sample positions on the 256 grid for each output index along one axis. */
function axisMap(outSize: number, resized: number): AxisMap {
  const i0 = new Int32Array(outSize);
  const i1 = new Int32Array(outSize);
  const w1 = new Float32Array(outSize);
  const toLowRes = resized / outSize / (1024 / LOW_RES_SIZE);
  for (let o = 0; o < outSize; o++) {
    let u = (o + 0.5) * toLowRes - 0.5;
    if (u < 0) u = 0;
    if (u > LOW_RES_SIZE - 1) u = LOW_RES_SIZE - 1;
    const f = Math.floor(u);
    i0[o] = f;
    i1[o] = Math.min(f + 1, LOW_RES_SIZE - 1);
    w1[o] = u - f;
  }
  return { i0, i1, w1 };
}

export function upsampleLogitsToMask(logits: Float32Array, frame: ModelFrame): BinaryMask {
  const xs = axisMap(frame.width, frame.resizedWidth);
  const ys = axisMap(frame.height, frame.resizedHeight);
  return upsampleRect(logits, xs, ys, { x: 0, y: 0, width: frame.width, height: frame.height });
}

/** A rectangle of an image-sized mask: `mask` holds the pixels from (`x`, `y`); the rest of the image is 0. */
export interface MaskCrop {
  readonly x: number;
  readonly y: number;
  readonly mask: BinaryMask;
}

/**
 * The same mask as `upsampleLogitsToMask`, computed only over the rectangle that can hold a positive
 * pixel (the pixels whose bilinear sample reads a low-res cell with a positive logit) and `margin`
 * pixels of background around it where the image allows: a small object of a large photo costs its
 * own size, not the photo's. undefined when no logit is positive (the mask would be empty).
 */
export function upsampleLogitsToCrop(logits: Float32Array, frame: ModelFrame, margin = 1): MaskCrop | undefined {
  const cells = positiveCells(logits, LOW_RES_SIZE, LOW_RES_SIZE);
  if (!cells) return undefined;
  const { x0: cx0, x1: cx1, y0: cy0, y1: cy1 } = cells;
  const xs = axisMap(frame.width, frame.resizedWidth);
  const ys = axisMap(frame.height, frame.resizedHeight);
  const [x0, x1] = readingSpan(xs, cx0, cx1, margin);
  const [y0, y1] = readingSpan(ys, cy0, cy1, margin);
  if (x1 < x0 || y1 < y0) return undefined;
  return { x: x0, y: y0, mask: upsampleRect(logits, xs, ys, { x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1 }) };
}

/**
 * The first and last column and row (inclusive) of the low-res cells with a positive logit, within
 * the top-left `columns` × `rows` of the 256 grid; undefined when there is none.
 */
export function positiveCells(logits: Float32Array, columns: number, rows: number): PixelBounds | undefined {
  return maskBounds(logits, columns, rows, LOW_RES_SIZE);
}

/** The crop written into an image-sized mask. */
export function placeCrop(crop: MaskCrop, width: number, height: number): BinaryMask {
  const data = new Uint8Array(width * height);
  const { mask } = crop;
  for (let y = 0; y < mask.height; y++) data.set(mask.data.subarray(y * mask.width, (y + 1) * mask.width), (crop.y + y) * width + crop.x);
  return { width, height, data };
}

/** The output indices (inclusive, widened by `margin` within the axis) whose sample reads a cell in [c0, c1]. */
function readingSpan(axis: AxisMap, c0: number, c1: number, margin: number): [number, number] {
  const n = axis.i0.length;
  // i0 ≤ i1 at every index: a sample reads a cell in [c0, c1] unless i1 < c0 or i0 > c1.
  let first = 0;
  while (first < n && axis.i1[first] < c0) first++;
  let last = n - 1;
  while (last >= 0 && axis.i0[last] > c1) last--;
  return [Math.max(0, first - margin), Math.min(n - 1, last + margin)];
}

function upsampleRect(logits: Float32Array, xs: AxisMap, ys: AxisMap, rect: { x: number; y: number; width: number; height: number }): BinaryMask {
  const { width, height } = rect;
  // Horizontally interpolated low-res rows, computed lazily: only the rows the output touches.
  const rows = new Map<number, Float32Array>();
  const rowAt = (r: number): Float32Array => {
    let row = rows.get(r);
    if (!row) {
      row = new Float32Array(width);
      const base = r * LOW_RES_SIZE;
      for (let x = 0; x < width; x++) {
        const a = logits[base + xs.i0[rect.x + x]];
        row[x] = a + (logits[base + xs.i1[rect.x + x]] - a) * xs.w1[rect.x + x];
      }
      rows.set(r, row);
    }
    return row;
  };

  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const top = rowAt(ys.i0[rect.y + y]);
    const bottom = rowAt(ys.i1[rect.y + y]);
    const w = ys.w1[rect.y + y];
    const out = y * width;
    if (w === 0) {
      for (let x = 0; x < width; x++) data[out + x] = top[x] > 0 ? 1 : 0;
    } else {
      for (let x = 0; x < width; x++) {
        const a = top[x];
        data[out + x] = a + (bottom[x] - a) * w > 0 ? 1 : 0;
      }
    }
  }
  return { width, height, data };
}

export function maskArea(mask: BinaryMask): number {
  let n = 0;
  const d = mask.data;
  for (let i = 0; i < d.length; i++) n += d[i];
  return n;
}

/**
 * The low-res logit at an image pixel, interpolated exactly as `upsampleLogitsToMask` does, so
 * "logit > 0 here" is the same statement as "the returned mask covers this pixel".
 */
export function logitAtPixel(logits: Float32Array, frame: ModelFrame, x: number, y: number): number {
  const px = Math.min(frame.width - 1, Math.max(0, Math.floor(x)));
  const py = Math.min(frame.height - 1, Math.max(0, Math.floor(y)));
  const toLowRes = (resized: number, size: number) => resized / size / (MODEL_SIZE / LOW_RES_SIZE);
  const axis = (p: number, resized: number, size: number): [number, number, number] => {
    const u = Math.min(LOW_RES_SIZE - 1, Math.max(0, (p + 0.5) * toLowRes(resized, size) - 0.5));
    const f = Math.floor(u);
    return [f, Math.min(f + 1, LOW_RES_SIZE - 1), u - f];
  };
  const [x0, x1, wx] = axis(px, frame.resizedWidth, frame.width);
  const [y0, y1, wy] = axis(py, frame.resizedHeight, frame.height);
  const row = (r: number) => {
    const a = logits[r * LOW_RES_SIZE + x0];
    return a + (logits[r * LOW_RES_SIZE + x1] - a) * wx;
  };
  const top = row(y0);
  return wy === 0 ? top : top + (row(y1) - top) * wy;
}
