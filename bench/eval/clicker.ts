/**
 * The standard click simulator of interactive-segmentation evaluation (RITM, SimpleClick,
 * FocalClick, SAM's interactive appendix), as written in ../shared/eval/PROTOCOL.md: the next
 * click goes to the error pixel farthest from the boundary of its error region.
 */
import { paddedSquaredDistanceTransform } from './distance';

/** Per-pixel ground truth: 1 object, 0 background, -1 ignore (GrabCut's boundary band). */
export interface GroundTruth {
  readonly width: number;
  readonly height: number;
  readonly labels: Int8Array;
}

export interface Click {
  /** Column and row of the clicked pixel. */
  readonly x: number;
  readonly y: number;
  readonly positive: boolean;
}

/**
 * The next click given the current prediction (1 = predicted object) and the clicks made so far.
 *
 * FN = object pixels not predicted, FP = background pixels predicted; ignore pixels are in
 * neither. Each gets an exact Euclidean distance map on the mask padded by one zero pixel, and
 * pixels already clicked are set to 0. Positive if max(dist FN) > max(dist FP), else negative;
 * the click is the first arg-max in row-major order.
 */
export function nextClick(truth: GroundTruth, prediction: Uint8Array, clicked: readonly Click[]): Click {
  const { width, height, labels } = truth;
  const size = width * height;
  const falseNegatives = new Uint8Array(size);
  const falsePositives = new Uint8Array(size);
  for (let i = 0; i < size; i++) {
    if (labels[i] === 1 && !prediction[i]) falseNegatives[i] = 1;
    else if (labels[i] === 0 && prediction[i]) falsePositives[i] = 1;
  }
  const fnDistances = paddedSquaredDistanceTransform(falseNegatives, width, height);
  const fpDistances = paddedSquaredDistanceTransform(falsePositives, width, height);
  for (const click of clicked) {
    fnDistances[click.y * width + click.x] = 0;
    fpDistances[click.y * width + click.x] = 0;
  }
  const fn = firstArgMax(fnDistances);
  const fp = firstArgMax(fpDistances);
  const positive = fn.value > fp.value;
  const index = positive ? fn.index : fp.index;
  return { x: index % width, y: Math.floor(index / width), positive };
}

/** Largest value and the first (row-major) index holding it. */
function firstArgMax(values: Float64Array): { index: number; value: number } {
  let index = 0;
  let value = values[0];
  for (let i = 1; i < values.length; i++) {
    if (values[i] > value) {
      value = values[i];
      index = i;
    }
  }
  return { index, value };
}
