/**
 * The options of one segmentation, defined once: how a prompt becomes masks and how a mask becomes
 * polygons. The studio (through the engine worker), the HTTP API (through the server's inference
 * workers), the CLI and the text pipeline all pass (part of) this object down to the engine, and
 * every field left out takes its value from DEFAULT_SEGMENTATION_OPTIONS — there is no other default.
 * It holds only what the product ships: the rules the eval measures beside it plug into `predict`
 * from the bench (`PredictOptions.rule`, decodeRule.ts; bench/eval/rules/).
 */

export interface SegmentationOptions {
  /**
   * Douglas–Peucker tolerance of mask → polygons, in image pixels; 0 keeps every corner of the
   * traced outline. The studio's Detail slider sets it.
   */
  readonly tolerance: number;
  /**
   * Parts and holes smaller than this share of the mask's area are specks (decoder noise where the
   * upsampled logits hover around 0) and are dropped; never fewer than MIN_SPECK_PIXELS.
   */
  readonly speckFraction: number;
  /** Several candidates (SAM's multimask output, the single-mask answer first) or that answer alone. */
  readonly multimask: boolean;
  /**
   * Decode the prompt on the photo and on its mirror image and average the two answers (`mirror.ts`):
   * steadier masks for one more encoder run per photo (`embed(…, { mirrored: true })`) and one more
   * decoder run per prompt.
   */
  readonly mirrorAverage: boolean;
}

/** Speck removal never drops parts of this many pixels or more, however small the share. */
export const MIN_SPECK_PIXELS = 4;

/**
 * tolerance 0.7: the outline the studio has always shown (the Detail slider's level 8); the error
 * control in polygons.ts keeps every part at IoU ≥ 0.99 whatever the tolerance.
 * speckFraction 0.001: SAM's own pipelines remove small regions the same way.
 * mirrorAverage true: the one rule measured to lower the clicks needed on every dataset. It doubles
 * the decoder per prompt, so the studio shows SAM's quick answer on the click and brings this rule
 * when the user pauses (`mirrorPass.ts`); callers that want one look say `mirrorAverage: false`.
 */
export const DEFAULT_SEGMENTATION_OPTIONS: SegmentationOptions = Object.freeze({
  tolerance: 0.7,
  speckFraction: 0.001,
  multimask: true,
  mirrorAverage: true,
});

/** The options a caller chose, the rest from the defaults. A field given as `undefined` counts as left out. */
export function segmentationOptions(chosen: Partial<SegmentationOptions> = {}): SegmentationOptions {
  return {
    tolerance: chosen.tolerance ?? DEFAULT_SEGMENTATION_OPTIONS.tolerance,
    speckFraction: chosen.speckFraction ?? DEFAULT_SEGMENTATION_OPTIONS.speckFraction,
    multimask: chosen.multimask ?? DEFAULT_SEGMENTATION_OPTIONS.multimask,
    mirrorAverage: chosen.mirrorAverage ?? DEFAULT_SEGMENTATION_OPTIONS.mirrorAverage,
  };
}

/** The part of the options that turns a mask into polygons. */
export type OutlineOptions = Pick<SegmentationOptions, 'tolerance' | 'speckFraction'>;

/** The smallest part (or hole) kept in the outline of a mask of `maskArea` pixels. */
export function speckArea(maskArea: number, speckFraction = DEFAULT_SEGMENTATION_OPTIONS.speckFraction): number {
  return Math.max(MIN_SPECK_PIXELS, Math.round(maskArea * speckFraction));
}
