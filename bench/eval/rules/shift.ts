/**
 * Shift averaging (test-time translation by half an encoder patch): the encoder sees the photo in
 * 16-px patches, so a small object is cut at the same patch boundaries on every click; the photo is
 * also embedded moved by half a patch, every prompt is decoded on both and the answers averaged,
 * so the boundary between two patches is never the same in both views. Half a patch is two cells
 * of the decoder's 256² logits, so the answers map back cell for cell, without resampling. It costs
 * one more encoder run per photo and one more decoder run per prompt. The geometry is here; the
 * engine runs it as a view (SHIFT_VIEW).
 */
import { LOW_RES_SIZE, MODEL_SIZE, type ModelFrame } from '../../../src/engine/frame';
import type { Tensor } from '../../../src/engine/runtime';
import type { RgbaImage, VisualPrompt } from '../../../src/engine/types';
import type { DecodeRule, PhotoView } from '../../../src/engine/decodeRule';
import { imageContentKey } from '../../../src/engine/hash';

/** Half of the encoder's 16-px patch, in model-frame pixels. */
export const SHIFT_MODEL_PX = 8;
const SHIFT_CELLS = SHIFT_MODEL_PX / (MODEL_SIZE / LOW_RES_SIZE);
/** The logit of low-resolution cells the shifted view has no pixels for: background. */
const OUTSIDE_LOGIT = -20;

/** The preprocessed [1, 3, S, S] frame moved right and down by SHIFT_MODEL_PX; what leaves the frame is dropped. */
export function shiftFrameTensor(tensor: Tensor): Tensor {
  const [, channels, height, width] = tensor.dims;
  const out = new Float32Array(tensor.data.length);
  for (let c = 0; c < channels; c++) {
    const plane = c * height * width;
    for (let y = SHIFT_MODEL_PX; y < height; y++) {
      const to = plane + y * width + SHIFT_MODEL_PX;
      const from = plane + (y - SHIFT_MODEL_PX) * width;
      out.set(tensor.data.subarray(from, from + width - SHIFT_MODEL_PX), to);
    }
  }
  return { data: out, dims: tensor.dims };
}

/** Low-resolution logits of the frame, moved like the shifted view's pixels (cells shifted in fill the background). */
export function shiftLowResLogits(logits: Float32Array): Float32Array {
  const out = new Float32Array(logits.length).fill(OUTSIDE_LOGIT);
  for (let r = SHIFT_CELLS; r < LOW_RES_SIZE; r++) {
    const to = r * LOW_RES_SIZE + SHIFT_CELLS;
    const from = (r - SHIFT_CELLS) * LOW_RES_SIZE;
    out.set(logits.subarray(from, from + LOW_RES_SIZE - SHIFT_CELLS), to);
  }
  return out;
}

/** The same prompt in the shifted view: clicks and box centre moved by SHIFT_MODEL_PX model pixels, the fed-back mask with them. */
export function shiftPrompt(prompt: VisualPrompt, frame: ModelFrame): VisualPrompt {
  const dx = SHIFT_MODEL_PX / frame.scaleX;
  const dy = SHIFT_MODEL_PX / frame.scaleY;
  return {
    points: prompt.points?.map((p) => ({ ...p, x: p.x + dx, y: p.y + dy })),
    box: prompt.box && { ...prompt.box, x: prompt.box.x + dx, y: prompt.box.y + dy },
    maskInput: prompt.maskInput && shiftLowResLogits(prompt.maskInput),
  };
}

/**
 * Every token's logits of the shifted view, moved back to the photo's frame. The last cells of each
 * row and column had no pixels in the shifted view (they left its frame): there `own` (the photo's
 * answer, stacked the same way) stands alone.
 */
export function unshiftTokenLogits(shifted: Float32Array, own: Float32Array): Float32Array {
  const size = LOW_RES_SIZE * LOW_RES_SIZE;
  const out = own.slice();
  for (let start = 0; start < shifted.length; start += size) {
    for (let r = 0; r < LOW_RES_SIZE - SHIFT_CELLS; r++) {
      const to = start + r * LOW_RES_SIZE;
      const from = start + (r + SHIFT_CELLS) * LOW_RES_SIZE + SHIFT_CELLS;
      out.set(shifted.subarray(from, from + LOW_RES_SIZE - SHIFT_CELLS), to);
    }
  }
  return out;
}

/** The frame moved by half a patch as a view of the photo (src/engine/decodeRule.ts). */
export const SHIFT_VIEW: PhotoView = Object.freeze({
  name: 'shifted',
  frame: shiftFrameTensor,
  // The same picture as the photo, seen otherwise: stored under the photo's key, marked.
  storeKey: (photo: RgbaImage) => `${imageContentKey(photo)}:shifted`,
  prompt: shiftPrompt,
  logitsBack: (logits: Float32Array, own: Float32Array) => unshiftTokenLogits(logits, own),
});

/** Shift averaging as a decoding rule: the photo must be embedded with `{ views: [SHIFT_VIEW] }`. */
export const shiftAverage: DecodeRule = Object.freeze({ views: [SHIFT_VIEW] });
