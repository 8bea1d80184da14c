/**
 * Cascaded refinement (PerSAM, Zhang et al. 2023): SAM's first answer to a prompt is decoded once more
 * with its own logits as the mask prompt and the box around it as a box prompt, the clicks kept. The
 * box tells the decoder the object's extent in the form it was trained on, so the second answer fills
 * the box's object instead of spilling past it or leaving parts out, at one more decoder run.
 */
import { maskBounds } from '../../../src/engine/bounds';
import type { BinaryMask, BoxPrompt, VisualPrompt } from '../../../src/engine/types';
import { bestToken, tokenLogits } from '../../../src/engine/candidates';
import type { Decoded, DecodeRule, DecodeStep } from '../../../src/engine/decodeRule';
import { upsampleLogitsToMask } from '../../../src/engine/upsample';

/** The center-anchored box around a mask's set pixels; undefined for an empty mask. */
export function maskBox(mask: BinaryMask): BoxPrompt | undefined {
  const bounds = maskBounds(mask.data, mask.width, mask.height);
  if (!bounds) return undefined;
  // Pixel (x, y) covers [x, x + 1): the box runs from the first pixel's left edge to the last one's right edge.
  const width = bounds.x1 + 1 - bounds.x0;
  const height = bounds.y1 + 1 - bounds.y0;
  return { x: bounds.x0 + width / 2, y: bounds.y0 + height / 2, width, height };
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

/** Cascaded refinement as a decoding rule (src/engine/decodeRule.ts): one more decoder run per prompt. */
export const cascadeRefine: DecodeRule = Object.freeze({
  async redecode(decoded: Decoded, step: DecodeStep): Promise<Decoded> {
    const answer = tokenLogits(decoded.outputs, bestToken(decoded.outputs, step.frame, decoded.kind));
    const refining = cascadePrompt(step.prompt, upsampleLogitsToMask(answer, step.frame), answer);
    return refining ? step.decode(refining) : decoded;
  },
});
