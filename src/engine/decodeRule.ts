/**
 * The hook through which a decoding rule that the product does not ship (the eval's experiments,
 * bench/eval/rules/) plugs into `SegmentationEngine.predict`, so `predict` itself holds only the
 * shipped rule: mirror averaging and SAM's own choice among the mask tokens (candidates.ts).
 *
 * A prediction runs these stages, each optional; a rule leaves out the ones it does not change:
 *
 *   views         other looks at the photo, decoded beside it and averaged (the photo must have been
 *                 embedded with them: `embed(…, { views })`)
 *   preparePrompt the prompt the decoder sees (the caller's prompt stays what the rule is told about)
 *   redecode      after the first decode: decode again (through `step.decode`) and answer with that
 *   correct       after the engine chose its token: another token, other outputs, or corrected logits
 *   toMask        the chosen logits → the full-size mask (default: SAM's bilinear resize)
 */
import type { PromptKind, TokenOutputs } from './candidates';
import type { ModelFrame } from './frame';
import type { Tensor } from './runtime';
import type { BinaryMask, RgbaImage, VisualPrompt } from './types';

/**
 * Another look at the photo whose answers are averaged with the photo's own (test-time
 * augmentation): the encoder sees the view, the prompt is moved into it, its logits are moved back.
 */
export interface PhotoView {
  /** Unique among the views a photo is embedded with: the view's embedding is kept under it. */
  readonly name: string;
  /** The picture the encoder sees, before preprocessing (left out: the photo). */
  picture?(photo: RgbaImage): RgbaImage;
  /** Applied to the preprocessed [1, 3, S, S] frame before the encoder (left out: nothing). */
  frame?(tensor: Tensor): Tensor;
  /** The key of this view's embedding in an `EmbeddingStore` (`picture` is what `picture()` gave). */
  storeKey(photo: RgbaImage, picture: RgbaImage): string;
  /** The prompt, moved into the view. */
  prompt(prompt: VisualPrompt, frame: ModelFrame): VisualPrompt;
  /** Every token's logits of the view, moved back to the photo's frame; `own` is the photo's answer, stacked alike. */
  logitsBack(logits: Float32Array, own: Float32Array, frame: ModelFrame): Float32Array;
}

/** One decode's outputs and the kind of prompt they answer (which decides the engine's token). */
export interface Decoded {
  readonly outputs: TokenOutputs;
  readonly kind: PromptKind;
}

/** The answer of a prediction: a token of some outputs, and that token's logits if a rule changed them. */
export interface Choice extends Decoded {
  readonly token: number;
  /** Replaces the chosen token's logits (a copy the rule owns). */
  readonly logits?: Float32Array;
}

/** What a stage knows about the prediction it is part of. */
export interface DecodeStep {
  /** The prompt as the caller gave it (before `preparePrompt`). */
  readonly asked: VisualPrompt;
  /** The prompt the decoder saw. */
  readonly prompt: VisualPrompt;
  readonly frame: ModelFrame;
  /** Whether the decoder answers with all four mask tokens (else one). */
  readonly multimaskAvailable: boolean;
  /** Decodes another prompt on the same photo and views (counted in the prediction's decoder time). */
  decode(prompt: VisualPrompt): Promise<Decoded>;
}

export interface DecodeRule {
  readonly views?: readonly PhotoView[];
  preparePrompt?(prompt: VisualPrompt, frame: ModelFrame): VisualPrompt;
  redecode?(decoded: Decoded, step: DecodeStep): Promise<Decoded>;
  correct?(choice: Choice, step: DecodeStep): Promise<Choice>;
  /** `imageKey` names the photo (as `embed` returned it), for a rule that keeps photos of its own. */
  toMask?(logits: Float32Array, frame: ModelFrame, imageKey: string): BinaryMask;
}
