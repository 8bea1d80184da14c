/**
 * 256×256 low-resolution logits (over the padded 1024 frame) → binary mask at the original image
 * resolution, thresholded at 0.
 *
 * SAM upsamples 256 → 1024 (bilinear, half-pixel centers), crops the padding, then resizes to the
 * original size. Both steps are folded into one bilinear sample per pixel here, done separably: each
 * needed low-res row is first interpolated to the output width, then output rows blend two of those.
 * That is far cheaper than the decoder's in-graph resize, which the engine does not fetch.
 */
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
  const { width, height } = frame;
  const xs = axisMap(width, frame.resizedWidth);
  const ys = axisMap(height, frame.resizedHeight);

  // Horizontally interpolated low-res rows, computed lazily: only the rows the output touches.
  const rows = new Map<number, Float32Array>();
  const rowAt = (r: number): Float32Array => {
    let row = rows.get(r);
    if (!row) {
      row = new Float32Array(width);
      const base = r * LOW_RES_SIZE;
      for (let x = 0; x < width; x++) {
        const a = logits[base + xs.i0[x]];
        row[x] = a + (logits[base + xs.i1[x]] - a) * xs.w1[x];
      }
      rows.set(r, row);
    }
    return row;
  };

  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const top = rowAt(ys.i0[y]);
    const bottom = rowAt(ys.i1[y]);
    const w = ys.w1[y];
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
