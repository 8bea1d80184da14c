/**
 * Which of SAM's four masks answers a detector's box in segment everything. SAM's own rule (token 0,
 * trained for boxes, unless it is unstable: candidates.ts) reads only the decoder's view of itself. The
 * detector's box is a second, independent look at the object's extent: a mask whose outline fills that
 * box is more probably the object than one that spills out of it or covers a part. All four masks come
 * from the same decoder run, so choosing among them costs no run.
 */
import { bestToken, tokenLogits, type TokenOutputs } from '../candidates';
import type { ModelFrame } from '../frame';
import { boxIoU, type CornerBox } from '../text/detector';
import { lowResBox } from './lowRes';

/** How a box prompt's mask is chosen: SAM's rule, or the mask whose box agrees best with the prompt's. */
export type BoxMaskChoice = 'sam' | 'box agreement';

export interface BoxAnswer {
  readonly token: number;
  /** Box IoU of the chosen mask's outline with the prompt's box (0 for an empty mask); measured for 'box agreement' only. */
  readonly agreement?: number;
}

/** The mask's outline against the prompt box, on the decoder's low-resolution logits (view pixels). */
export function boxAgreement(outputs: TokenOutputs, token: number, frame: ModelFrame, promptBox: CornerBox): number {
  const outline = lowResBox(tokenLogits(outputs, token), frame);
  return outline ? boxIoU(outline, promptBox) : 0;
}

/**
 * The token answering `promptBox` (view pixels). With 'box agreement' the token whose mask's outline has
 * the highest box IoU with the prompt; SAM's own choice wins ties, so it changes only when another mask
 * agrees strictly better.
 */
export function boxPromptToken(outputs: TokenOutputs, frame: ModelFrame, promptBox: CornerBox, choice: BoxMaskChoice): BoxAnswer {
  const samToken = bestToken(outputs, frame, { ambiguous: false, unstableFallback: true });
  if (choice === 'sam') return { token: samToken };
  let best = { token: samToken, agreement: boxAgreement(outputs, samToken, frame, promptBox) };
  for (let token = 0; token < outputs.tokens; token++) {
    if (token === samToken) continue;
    const agreement = boxAgreement(outputs, token, frame, promptBox);
    if (agreement > best.agreement) best = { token, agreement };
  }
  return best;
}
