/**
 * The decoding rules the eval measures beside the engine's own (mirror averaging, SAM's choice of
 * token), each one module here, plugged into `SegmentationEngine.predict` through its hook
 * (`PredictOptions.rule`, src/engine/decodeRule.ts). The product ships none of them.
 */
import type { Choice, Decoded, DecodeRule, DecodeStep } from '../../../src/engine/decodeRule';
import type { RgbaImage } from '../../../src/engine/types';
import { cascadeRefine } from './cascade';
import { alignMaskPrompt } from './clickAlignedMaskPrompt';
import { clickConsistency, type ClickConsistency } from './consistency';
import { edgeAwareUpsampling } from './edgeAwareUpsample';
import { progressiveMerge } from './progressiveMerge';
import { shiftAverage } from './shift';

export type { ClickConsistency } from './consistency';

/** How the 256² logits become the full-size mask: 'bilinear' (SAM's own resize) or 'edge-aware' (the photo guides). */
export type MaskUpsampling = 'bilinear' | 'edge-aware';

/** Which of the bench's rules an eval rule runs; each off is the engine's own behaviour. */
export interface RuleChoice {
  /** 'off' is SAM's own answer; the others replace an answer that violates a click (consistency.ts). */
  readonly clickConsistency: ClickConsistency;
  readonly upsampling: MaskUpsampling;
  /** Make a fed-back previous mask agree with the clicks before decoding (clickAlignedMaskPrompt.ts). */
  readonly alignMaskPrompt: boolean;
  /** From the tenth click on, the newest click changes only the region it lies in (progressiveMerge.ts). */
  readonly progressiveMerge: boolean;
  /** Also decode the frame moved by half an encoder patch and average the answers (shift.ts). */
  readonly shiftAverage: boolean;
  /** Decode once more with the answer's box and logits as prompts, the clicks kept (cascade.ts). */
  readonly cascadeRefine: boolean;
}

/** Every rule off: the engine's own decoding. */
export const NO_RULES: RuleChoice = Object.freeze({
  clickConsistency: 'off',
  upsampling: 'bilinear',
  alignMaskPrompt: false,
  progressiveMerge: false,
  shiftAverage: false,
  cascadeRefine: false,
});

/**
 * One rule that runs `rules` stage by stage: views in order, prompts prepared and answers decoded
 * again and corrected one rule after the other; the last rule that makes masks makes them.
 */
export function combineRules(rules: readonly DecodeRule[]): DecodeRule {
  const views = rules.flatMap((r) => r.views ?? []);
  const toMask = rules.findLast((r) => r.toMask)?.toMask;
  return {
    views,
    preparePrompt: (prompt, frame) => rules.reduce((p, r) => (r.preparePrompt ? r.preparePrompt(p, frame) : p), prompt),
    async redecode(decoded: Decoded, step: DecodeStep) {
      for (const r of rules) if (r.redecode) decoded = await r.redecode(decoded, step);
      return decoded;
    },
    async correct(chosen: Choice, step: DecodeStep) {
      for (const r of rules) if (r.correct) chosen = await r.correct(chosen, step);
      return chosen;
    },
    toMask,
  };
}

/**
 * The decoding rule of a choice, its stages in the order the engine ran them when they were its
 * options: the mask prompt aligned, the cascade's second decode, click consistency, progressive merge,
 * edge-aware masks. `photoOf` finds an embedded photo by its key (edge-aware upsampling's guide).
 */
export function decodeRuleFor(choice: RuleChoice, photoOf: (imageKey: string) => RgbaImage | undefined): DecodeRule {
  const rules: DecodeRule[] = [];
  if (choice.shiftAverage) rules.push(shiftAverage);
  if (choice.alignMaskPrompt) rules.push(alignMaskPrompt);
  if (choice.cascadeRefine) rules.push(cascadeRefine);
  if (choice.clickConsistency !== 'off') rules.push(clickConsistency(choice.clickConsistency));
  if (choice.progressiveMerge) rules.push(progressiveMerge);
  if (choice.upsampling === 'edge-aware') rules.push(edgeAwareUpsampling(photoOf));
  return rules.length === 0 ? {} : rules.length === 1 ? rules[0] : combineRules(rules);
}
