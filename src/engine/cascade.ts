/**
 * Cascaded refinement (PerSAM, Zhang et al. 2023): SAM's first answer to a prompt is decoded once more
 * with its own logits as the mask prompt and the box around it as a box prompt, the clicks kept. The
 * box tells the decoder the object's extent in the form it was trained on, so the second answer fills
 * the box's object instead of spilling past it or leaving parts out, at one more decoder run.
 */
import type { BinaryMask, BoxPrompt, VisualPrompt } from './types';

/** The center-anchored box around a mask's set pixels; undefined for an empty mask. */
export function maskBox(mask: BinaryMask): BoxPrompt | undefined {
  const { width, height, data } = mask;
  let x0 = width;
  let y0 = height;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      if (!data[row + x]) continue;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      y1 = y;
    }
  }
  if (x1 < 0) return undefined;
  // Pixel (x, y) covers [x, x + 1): the box runs from the first pixel's left edge to the last one's right edge.
  const boxWidth = x1 + 1 - x0;
  const boxHeight = y1 + 1 - y0;
  return { x: x0 + boxWidth / 2, y: y0 + boxHeight / 2, width: boxWidth, height: boxHeight };
}

/**
 * The prompt of the refining decode: the clicks as they were, the answer's box and its logits.
 * A prompt that already has a box keeps it (the user's box is the extent).
 */
export function cascadePrompt(prompt: VisualPrompt, answer: BinaryMask, answerLogits: Float32Array): VisualPrompt | undefined {
  const box = prompt.box ?? maskBox(answer);
  if (!box) return undefined;
  return { points: prompt.points, box, maskInput: answerLogits };
}
