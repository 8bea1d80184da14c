/**
 * Progressive merge (FocalClick's rule): from the tenth click on, the newest click (the last point)
 * changes only the connected region of the change it lies in, within the window of the local
 * correction (`correctAround`, consistency.ts); the rest of the fed-back previous mask, which earlier
 * clicks fixed, stays. Early clicks still reshape the whole object; late ones fine-tune it.
 */
import { tokenLogits } from '../../../src/engine/candidates';
import type { Choice, DecodeRule, DecodeStep } from '../../../src/engine/decodeRule';
import { correctAround } from './consistency';

/** From this click on the merge applies (the click count at which FocalClick's evaluation switches it on). */
export const PROGRESSIVE_MERGE_FROM_CLICK = 10;

export const progressiveMerge: DecodeRule = Object.freeze({
  async correct(chosen: Choice, step: DecodeStep): Promise<Choice> {
    const previous = step.asked.maskInput;
    const points = step.prompt.points ?? [];
    const newest = points[points.length - 1];
    if (!previous || !newest || points.length < PROGRESSIVE_MERGE_FROM_CLICK) return chosen;
    // The newest click changes the region it lies in; when the answer did not change there (the
    // click had no effect), SAM's answer stands, so the click is not lost.
    const merged = correctAround(previous, chosen.logits ?? tokenLogits(chosen.outputs, chosen.token), step.frame, newest);
    return merged ? { ...chosen, logits: merged } : chosen;
  },
});
