/**
 * SAM image preprocessing on typed arrays: resize the longest side to 1024, normalize with
 * ImageNet mean/std (on the 0..255 scale), lay out as CHW float32, pad bottom/right with zeros
 * (SAM pads after normalizing, so padding is 0 in normalized space).
 *
 * The resize is a separable triangle (bilinear) filter whose support widens when downscaling, i.e.
 * antialiased like PIL's `Image.resize(BILINEAR)` that segment-anything uses; upscaling is plain
 * bilinear with half-pixel centers.
 */
import { MODEL_SIZE, modelFrame, type ModelFrame } from './frame';
import type { Tensor } from './runtime';
import type { RgbaImage } from './types';

export const PIXEL_MEAN = [123.675, 116.28, 103.53] as const;
export const PIXEL_STD = [58.395, 57.12, 57.375] as const;

export interface PreprocessedImage {
  readonly tensor: Tensor;
  readonly frame: ModelFrame;
}

/** For each output index: the first input index and the normalized weights of its taps. */
interface ResampleWeights {
  readonly first: Int32Array;
  readonly count: Int32Array;
  /** `taps` weights per output index, padded with zeros. */
  readonly weights: Float32Array;
  readonly taps: number;
}

export function resampleWeights(inSize: number, outSize: number): ResampleWeights {
  const scale = inSize / outSize;
  const support = Math.max(scale, 1); // triangle radius in input pixels
  const taps = Math.ceil(support) * 2 + 2; // covers floor(c - s) .. ceil(c + s)
  const first = new Int32Array(outSize);
  const count = new Int32Array(outSize);
  const weights = new Float32Array(outSize * taps);
  for (let o = 0; o < outSize; o++) {
    const center = (o + 0.5) * scale;
    const lo = Math.max(0, Math.floor(center - support));
    const hi = Math.min(inSize, Math.ceil(center + support));
    let sum = 0;
    let n = 0;
    for (let i = lo; i < hi && n < taps; i++, n++) {
      const w = Math.max(0, 1 - Math.abs((i + 0.5 - center) / support));
      weights[o * taps + n] = w;
      sum += w;
    }
    if (sum === 0) {
      // Can only happen at degenerate sizes; fall back to nearest.
      const nearest = Math.min(inSize - 1, Math.max(0, Math.floor(center)));
      first[o] = nearest;
      count[o] = 1;
      weights[o * taps] = 1;
      continue;
    }
    for (let k = 0; k < n; k++) weights[o * taps + k] /= sum;
    first[o] = lo;
    count[o] = n;
  }
  return { first, count, weights, taps };
}

/**
 * Resizes RGBA → RGB (0..255 floats), handing each finished output row, interleaved RGB, to `emitRow`.
 * Horizontal pass first (it shrinks the row length before the vertical pass touches every row); the
 * vertical pass accumulates whole rows so memory is read sequentially.
 */
function resizeRgbRows(image: RgbaImage, outW: number, outH: number, emitRow: (y: number, rgb: Float32Array) => void): void {
  const { width: inW, height: inH, data } = image;
  if (data.length < inW * inH * 4) throw new RangeError('image data is shorter than width × height × 4');
  const hw = resampleWeights(inW, outW);
  const vw = resampleWeights(inH, outH);

  // Horizontal: inH rows × outW columns, 3 interleaved channels.
  const rowLen = outW * 3;
  const tmp = new Float32Array(inH * rowLen);
  for (let y = 0; y < inH; y++) {
    const rowIn = y * inW * 4;
    const rowOut = y * rowLen;
    for (let x = 0; x < outW; x++) {
      const f = hw.first[x];
      const n = hw.count[x];
      const wBase = x * hw.taps;
      let r = 0;
      let g = 0;
      let b = 0;
      for (let k = 0; k < n; k++) {
        const w = hw.weights[wBase + k];
        const p = rowIn + (f + k) * 4;
        r += data[p] * w;
        g += data[p + 1] * w;
        b += data[p + 2] * w;
      }
      const q = rowOut + x * 3;
      tmp[q] = r;
      tmp[q + 1] = g;
      tmp[q + 2] = b;
    }
  }

  // Vertical: weighted sums of whole rows.
  const acc = new Float32Array(rowLen);
  for (let y = 0; y < outH; y++) {
    const f = vw.first[y];
    const n = vw.count[y];
    const wBase = y * vw.taps;
    acc.fill(0);
    for (let k = 0; k < n; k++) {
      const w = vw.weights[wBase + k];
      if (w === 0) continue;
      const src = (f + k) * rowLen;
      for (let i = 0; i < rowLen; i++) acc[i] += tmp[src + i] * w;
    }
    emitRow(y, acc);
  }
}

/** Resizes RGBA → three planar RGB float (0..255) channels of size outW×outH. */
export function resizeRgbToPlanar(image: RgbaImage, outW: number, outH: number): Float32Array[] {
  const planes = [new Float32Array(outW * outH), new Float32Array(outW * outH), new Float32Array(outW * outH)];
  resizeRgbRows(image, outW, outH, (y, rgb) => {
    const row = y * outW;
    for (let x = 0; x < outW; x++) {
      planes[0][row + x] = rgb[x * 3];
      planes[1][row + x] = rgb[x * 3 + 1];
      planes[2][row + x] = rgb[x * 3 + 2];
    }
  });
  return planes;
}

/** The encoder input [1, 3, 1024, 1024] for `image`, plus the frame geometry for prompts and masks. */
export function preprocessImage(image: RgbaImage, modelSize = MODEL_SIZE): PreprocessedImage {
  const frame = modelFrame(image.width, image.height, modelSize);
  const { resizedWidth: w, resizedHeight: h } = frame;
  const area = modelSize * modelSize;
  const out = new Float32Array(3 * area); // zero = padding in normalized space
  const [mr, mg, mb] = PIXEL_MEAN;
  const [sr, sg, sb] = PIXEL_STD.map((s) => 1 / s);
  resizeRgbRows(image, w, h, (y, rgb) => {
    const r = y * modelSize;
    const g = area + r;
    const b = 2 * area + r;
    for (let x = 0, i = 0; x < w; x++, i += 3) {
      out[r + x] = (rgb[i] - mr) * sr;
      out[g + x] = (rgb[i + 1] - mg) * sg;
      out[b + x] = (rgb[i + 2] - mb) * sb;
    }
  });
  return { tensor: { data: out, dims: [1, 3, modelSize, modelSize] }, frame };
}
