/**
 * Builds the SAM decoder's prompt inputs from pixel-space points and the service's CENTER-anchored box.
 *
 * - Points are scaled into the 1024 model frame (the exported graph adds SAM's +0.5 pixel-center shift
 *   itself); labels: 1 positive, 0 negative.
 * - The box {x, y, width, height} (x, y = center) becomes its top-left / bottom-right corners with
 *   labels 2 and 3, after the points, clamped to the image.
 * - Without a box SAM's ONNX export expects a padding point (0, 0) with label −1 at the end.
 * - A previous prediction's 256×256 logits can be fed back as `mask_input` (has_mask_input = 1).
 */
import { LOW_RES_SIZE, type ModelFrame } from './frame';
import type { Tensor } from './runtime';
import type { BoxPrompt, PointPrompt, VisualPrompt } from './types';

export const LABEL_NEGATIVE = 0;
export const LABEL_POSITIVE = 1;
export const LABEL_BOX_TOP_LEFT = 2;
export const LABEL_BOX_BOTTOM_RIGHT = 3;
export const LABEL_PADDING = -1;

export class PromptError extends Error {
  override name = 'PromptError';
}

export interface PromptPoint {
  x: number;
  y: number;
  label: number;
}

/** Center-anchored box → [top-left, bottom-right] corners in image pixels, clamped to the image. */
export function boxCorners(box: BoxPrompt, width: number, height: number): [PromptPoint, PromptPoint] {
  const clampX = (v: number) => Math.min(width, Math.max(0, v));
  const clampY = (v: number) => Math.min(height, Math.max(0, v));
  return [
    { x: clampX(box.x - box.width / 2), y: clampY(box.y - box.height / 2), label: LABEL_BOX_TOP_LEFT },
    { x: clampX(box.x + box.width / 2), y: clampY(box.y + box.height / 2), label: LABEL_BOX_BOTTOM_RIGHT },
  ];
}

function checkFinite(name: string, ...values: number[]): void {
  for (const v of values) if (!Number.isFinite(v)) throw new PromptError(`${name} has a non-finite coordinate`);
}

/** Prompt points in image pixels with SAM labels, in the order the decoder expects (no padding yet). */
export function promptPoints(prompt: VisualPrompt, width: number, height: number): PromptPoint[] {
  const points: PromptPoint[] = (prompt.points ?? []).map((p: PointPrompt, i) => {
    checkFinite(`point ${i}`, p.x, p.y);
    return { x: p.x, y: p.y, label: p.positive === false ? LABEL_NEGATIVE : LABEL_POSITIVE };
  });
  if (prompt.box) {
    const b = prompt.box;
    checkFinite('box', b.x, b.y, b.width, b.height);
    if (!(b.width > 0 && b.height > 0)) throw new PromptError('box width and height must be positive');
    points.push(...boxCorners(b, width, height));
  }
  if (!prompt.box && !points.some((p) => p.label === LABEL_POSITIVE)) {
    throw new PromptError('a prompt needs a box or at least one positive point');
  }
  return points;
}

export interface DecoderPromptFeeds {
  point_coords: Tensor;
  point_labels: Tensor;
  mask_input: Tensor;
  has_mask_input: Tensor;
  orig_im_size: Tensor;
}

export function encodePrompt(prompt: VisualPrompt, frame: ModelFrame): DecoderPromptFeeds {
  const points = promptPoints(prompt, frame.width, frame.height);
  if (!prompt.box) points.push({ x: 0, y: 0, label: LABEL_PADDING });
  const n = points.length;
  const coords = new Float32Array(n * 2);
  const labels = new Float32Array(n);
  points.forEach((p, i) => {
    const isPadding = p.label === LABEL_PADDING;
    coords[2 * i] = isPadding ? 0 : p.x * frame.scaleX;
    coords[2 * i + 1] = isPadding ? 0 : p.y * frame.scaleY;
    labels[i] = p.label;
  });
  const lowResArea = LOW_RES_SIZE * LOW_RES_SIZE;
  let maskInput: Float32Array;
  if (prompt.maskInput) {
    if (prompt.maskInput.length !== lowResArea) {
      throw new PromptError(`maskInput must hold ${lowResArea} logits (256×256), got ${prompt.maskInput.length}`);
    }
    maskInput = prompt.maskInput;
  } else {
    maskInput = new Float32Array(lowResArea);
  }
  return {
    point_coords: { data: coords, dims: [1, n, 2] },
    point_labels: { data: labels, dims: [1, n] },
    mask_input: { data: maskInput, dims: [1, 1, LOW_RES_SIZE, LOW_RES_SIZE] },
    has_mask_input: { data: new Float32Array([prompt.maskInput ? 1 : 0]), dims: [1] },
    // Only read by the in-graph resize of the `masks` output, which the engine does not fetch.
    orig_im_size: { data: new Float32Array([frame.height, frame.width]), dims: [2] },
  };
}
