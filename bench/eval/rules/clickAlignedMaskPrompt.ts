/**
 * The previous mask, fed back as SAM's `mask_input`, made to agree with the clicks before the decoder
 * sees it.
 *
 * The mask prompt is the decoder's strongest hint: fed its own previous logits, it tends to return
 * nearly the same mask, so a click on an error often changes nothing (the clicker then clicks the
 * same spot again) or the mask jumps elsewhere. The clicks and the mask prompt then say opposite
 * things at the very place the user pointed. Here, around every click, the fed-back logits that
 * contradict the click are set to "undecided" (a logit that agrees is kept), so the mask prompt
 * abstains where the user pointed and the click decides there; the decoder works out the extent.
 * The disk is one encoder patch across (16 model pixels), the finest detail the image embedding
 * resolves; everything else in the mask prompt is left as it was.
 */
import { LOW_RES_SIZE, MODEL_SIZE, type ModelFrame } from '../../../src/engine/frame';
import type { PointPrompt, VisualPrompt } from '../../../src/engine/types';
import type { DecodeRule } from '../../../src/engine/decodeRule';

/** Radius in logit cells (4 model pixels each): half of one 16-pixel encoder patch. */
export const CLICK_RADIUS_CELLS = 2;
/**
 * What the mask prompt is set to around a click that it contradicts: 0, "undecided". Not a confident
 * vote for the click's side: that makes the decoder copy the prompt, so a negative click on a wrong
 * part punches a click-sized hole instead of removing the part.
 */
export const CLICK_LOGIT = 0;

export function clickAlignedMaskPrompt(maskInput: Float32Array, frame: ModelFrame, points: readonly PointPrompt[]): Float32Array {
  const aligned = maskInput.slice();
  const cellsPerPixelX = frame.scaleX / (MODEL_SIZE / LOW_RES_SIZE);
  const cellsPerPixelY = frame.scaleY / (MODEL_SIZE / LOW_RES_SIZE);
  const radius = CLICK_RADIUS_CELLS;
  for (const point of points) {
    const positive = point.positive ?? true;
    // The click's pixel centre on the cell grid (cell centres at integers), as the mask is upsampled.
    const u = (Math.floor(point.x) + 0.5) * cellsPerPixelX - 0.5;
    const v = (Math.floor(point.y) + 0.5) * cellsPerPixelY - 0.5;
    for (let r = Math.max(0, Math.ceil(v - radius)); r <= Math.min(LOW_RES_SIZE - 1, Math.floor(v + radius)); r++) {
      for (let c = Math.max(0, Math.ceil(u - radius)); c <= Math.min(LOW_RES_SIZE - 1, Math.floor(u + radius)); c++) {
        if ((r - v) ** 2 + (c - u) ** 2 > radius * radius) continue;
        const i = r * LOW_RES_SIZE + c;
        aligned[i] = positive ? Math.max(aligned[i], CLICK_LOGIT) : Math.min(aligned[i], -CLICK_LOGIT);
      }
    }
  }
  return aligned;
}

/** The click-aligned mask prompt as a decoding rule (src/engine/decodeRule.ts): no extra decoder run. */
export const alignMaskPrompt: DecodeRule = Object.freeze({
  preparePrompt: (prompt: VisualPrompt, frame: ModelFrame): VisualPrompt =>
    prompt.maskInput && prompt.points?.length ? { ...prompt, maskInput: clickAlignedMaskPrompt(prompt.maskInput, frame, prompt.points) } : prompt,
});
