/**
 * Mirror averaging (test-time flip, as RITM's and FocalClick's evaluations use it): the photo is also
 * segmented mirrored left–right and the two answers are averaged, so the decoder's errors that do
 * not follow the object (they change with its orientation) partly cancel. It costs one more encoder
 * run per photo and one more decoder run per prompt. The geometry is here, as the view the engine
 * decodes beside the photo (`MIRROR_VIEW`); the engine runs it.
 */
import type { PhotoView } from './decodeRule';
import { LOW_RES_SIZE, MODEL_SIZE, type ModelFrame } from './frame';
import { imageContentKey } from './hash';
import type { PointPrompt, RgbaImage, VisualPrompt } from './types';

/** The logit of low-resolution cells that fall in the frame's padding once mirrored: background. */
const OUTSIDE_LOGIT = -20;

export function mirrorImage(image: RgbaImage): RgbaImage {
  const { width, height } = image;
  const data = new Uint8Array(image.data.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const from = (y * width + x) * 4;
      const to = (y * width + (width - 1 - x)) * 4;
      data[to] = image.data[from];
      data[to + 1] = image.data[from + 1];
      data[to + 2] = image.data[from + 2];
      data[to + 3] = image.data[from + 3];
    }
  }
  return { width, height, data };
}

/**
 * A click's position in the mirrored photo: its model-frame position (x·scale + ½, the +½ the
 * decoder graph adds) mirrored about the resized image's centre.
 */
export function mirrorPoint(point: PointPrompt, frame: ModelFrame): PointPrompt {
  return { ...point, x: (frame.resizedWidth - 1) / frame.scaleX - point.x };
}

/**
 * Low-resolution logits of one frame, mirrored: cell c (centre 4c + 2 model pixels) goes to the cell
 * whose centre is its mirror image about the resized width's centre; between cells it is linear,
 * and cells that fall in the padding are background. Its own inverse.
 */
export function mirrorLowResLogits(logits: Float32Array, frame: ModelFrame): Float32Array {
  const cell = MODEL_SIZE / LOW_RES_SIZE;
  const mirror = frame.resizedWidth / cell - 1;
  const valid = Math.ceil(frame.resizedWidth / cell);
  const out = new Float32Array(logits.length);
  for (let r = 0; r < LOW_RES_SIZE; r++) {
    const row = r * LOW_RES_SIZE;
    for (let c = 0; c < LOW_RES_SIZE; c++) {
      const source = mirror - c;
      if (c >= valid || source < 0 || source > LOW_RES_SIZE - 1) {
        out[row + c] = OUTSIDE_LOGIT;
        continue;
      }
      const c0 = Math.floor(source);
      const c1 = Math.min(LOW_RES_SIZE - 1, c0 + 1);
      const f = source - c0;
      out[row + c] = logits[row + c0] * (1 - f) + logits[row + c1] * f;
    }
  }
  return out;
}

/** The same prompt on the mirrored photo: clicks, box centre and fed-back mask mirrored. */
export function mirrorPrompt(prompt: VisualPrompt, frame: ModelFrame): VisualPrompt {
  return {
    points: prompt.points?.map((p) => mirrorPoint(p, frame)),
    box: prompt.box && { ...prompt.box, x: mirrorPoint(prompt.box, frame).x },
    maskInput: prompt.maskInput && mirrorLowResLogits(prompt.maskInput, frame),
  };
}

/** Every token's logits of the mirrored answer, mirrored back (tokens stacked, 256² each). */
export function mirrorTokenLogits(logits: Float32Array, frame: ModelFrame): Float32Array {
  const size = LOW_RES_SIZE * LOW_RES_SIZE;
  const out = new Float32Array(logits.length);
  for (let start = 0; start < logits.length; start += size) {
    out.set(mirrorLowResLogits(logits.subarray(start, start + size), frame), start);
  }
  return out;
}

/** The element-wise mean of arrays of one length (the views' answers of test-time averaging). */
export function meanOf(arrays: readonly Float32Array[]): Float32Array {
  const out = new Float32Array(arrays[0].length);
  for (const array of arrays) for (let i = 0; i < out.length; i++) out[i] += array[i];
  for (let i = 0; i < out.length; i++) out[i] /= arrays.length;
  return out;
}

/** The mirror image as a view of the photo (decodeRule.ts): the engine's `mirrorAverage`. */
export const MIRROR_VIEW: PhotoView = Object.freeze({
  name: 'mirror',
  picture: mirrorImage,
  // The mirror image is a picture of its own: stored under its own content key.
  storeKey: (_photo: RgbaImage, picture: RgbaImage) => imageContentKey(picture),
  prompt: mirrorPrompt,
  logitsBack: (logits: Float32Array, _own: Float32Array, frame: ModelFrame) => mirrorTokenLogits(logits, frame),
});
