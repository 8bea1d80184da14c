import type { SegmentationOptions } from '../../engine/options';
import type { PointPrompt, VisualPrompt } from '../../engine/types';
import type { PromptState } from '../state/model';

/**
 * What the studio chooses per decode: the slider's tolerance, one or several candidates, and no
 * mirror averaging on the click itself: the click shows SAM's quick answer, and the mirror pass
 * (`mirrorPass.ts`) brings the engine's rule once the user pauses.
 */
export type StudioDecodeOptions = Readonly<Pick<SegmentationOptions, 'multimask' | 'tolerance' | 'mirrorAverage'>>;

/** The decode the local engine is asked for one prompt: the click and the hover preview build it alike. */
export interface LocalDecodeRequest {
  readonly prompt: VisualPrompt;
  /** The studio's choices of the engine's segmentation options; the engine's defaults fill the rest. */
  readonly options: StudioDecodeOptions;
}

/** SAM's own advice: several candidates for an ambiguous single click, one refined mask otherwise. */
export function wantsMultimask(prompt: Pick<PromptState, 'points' | 'box'>): boolean {
  return prompt.points.length + (prompt.box ? 1 : 0) <= 1;
}

/**
 * `previousLogits`: the selected candidate's logits, fed back so a further click refines that mask;
 * unused when several candidates are asked for (a fresh, ambiguous prompt).
 */
export function localDecodeRequest(
  prompt: { readonly points: readonly PointPrompt[]; readonly box: PromptState['box'] },
  previousLogits: Float32Array | undefined,
  tolerance: number,
): LocalDecodeRequest {
  const multimask = wantsMultimask(prompt);
  return {
    prompt: { points: prompt.points, box: prompt.box ?? undefined, maskInput: multimask ? undefined : previousLogits },
    options: { multimask, tolerance, mirrorAverage: false },
  };
}

/** The logits of the candidate the user is looking at, if it has any (remote answers have none). */
export function selectedLogits(prompt: PromptState): Float32Array | undefined {
  return prompt.candidates[prompt.selected]?.lowResLogits;
}
