/**
 * The options of one segmentation, defined once: how a prompt becomes masks and how a mask becomes
 * polygons. The studio (through the engine worker), the HTTP API (through the server's inference
 * workers), the CLI and the text pipeline all pass (part of) this object down to the engine, and
 * every field left out takes its value from DEFAULT_SEGMENTATION_OPTIONS — there is no other default.
 */

/** How the engine keeps its answer consistent with the clicks (see `SegmentationEngine.predict`). */
export type ClickConsistency = 'off' | 'tokens' | 'tokens-and-fresh' | 'local';

/**
 * How the 256² logits become the full-size mask: 'bilinear' (SAM's own resize) or 'edge-aware'
 * (joint bilateral upsampling guided by the photo near the boundary, `edgeAwareUpsample.ts`).
 */
export type MaskUpsampling = 'bilinear' | 'edge-aware';

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
  /** 'off' is SAM's own answer; the others replace an answer that violates a click (consistency.ts). */
  readonly clickConsistency: ClickConsistency;
  readonly upsampling: MaskUpsampling;
  /** Make a fed-back previous mask agree with the clicks before decoding (`clickAlignedMaskPrompt.ts`). */
  readonly alignMaskPrompt: boolean;
  /**
   * Progressive merge (FocalClick): from the tenth click on, the newest click (the last point) changes
   * only the connected region it lies in; the rest of the previous mask, which earlier clicks fixed,
   * is kept (`SegmentationEngine.predict`).
   */
  readonly progressiveMerge: boolean;
  /**
   * Decode the prompt on the photo and on its mirror image and average the two answers (`mirror.ts`):
   * steadier masks for one more encoder run per photo (`embed(…, { mirrored: true })`) and one more
   * decoder run per prompt.
   */
  readonly mirrorAverage: boolean;
  /**
   * Decode the prompt also on the photo moved by half an encoder patch and average the answers
   * (`shift.ts`): one more encoder run per photo (`embed(…, { shifted: true })`), one more decoder run
   * per prompt. Combines with `mirrorAverage` (then three views).
   */
  readonly shiftAverage: boolean;
  /**
   * Decode once more with the answer's box and logits as prompts, the clicks kept (`cascade.ts`):
   * one more decoder run per prompt.
   */
  readonly cascadeRefine: boolean;
}

/** Speck removal never drops parts of this many pixels or more, however small the share. */
export const MIN_SPECK_PIXELS = 4;

/**
 * tolerance 0.7: the outline the studio has always shown (the Detail slider's level 8); the error
 * control in polygons.ts keeps every part at IoU ≥ 0.99 whatever the tolerance.
 * speckFraction 0.001: SAM's own pipelines remove small regions the same way.
 * clickConsistency 'off': on the measured sets no consistency rule lowered the clicks needed
 * (docs/RESULTS.md), and the extra decode costs decoder time on every click.
 * upsampling 'bilinear': on the measured subsets the photo-guided boundary did not lower the clicks
 * needed, and on the same logits it mostly removed boundary pixels (antialiased, mixed-colour ones)
 * that the ground truth counts as object.
 * alignMaskPrompt false: it helped on a subset of the harder set, but on the whole of GrabCut it
 * made the clicks needed for 90 % IoU worse, and no dataset may get worse (docs/RESULTS.md).
 * mirrorAverage true: the one rule measured to lower the clicks needed on every dataset. It doubles
 * the decoder per prompt, so the studio shows SAM's quick answer on the click and brings this rule
 * when the user pauses (`mirrorPass.ts`); callers that want one look say `mirrorAverage: false`.
 */
export const DEFAULT_SEGMENTATION_OPTIONS: SegmentationOptions = Object.freeze({
  tolerance: 0.7,
  speckFraction: 0.001,
  multimask: true,
  clickConsistency: 'off',
  upsampling: 'bilinear',
  alignMaskPrompt: false,
  progressiveMerge: false,
  shiftAverage: false,
  cascadeRefine: false,
  mirrorAverage: true,
});

/** The options a caller chose, the rest from the defaults. A field given as `undefined` counts as left out. */
export function segmentationOptions(chosen: Partial<SegmentationOptions> = {}): SegmentationOptions {
  return {
    tolerance: chosen.tolerance ?? DEFAULT_SEGMENTATION_OPTIONS.tolerance,
    speckFraction: chosen.speckFraction ?? DEFAULT_SEGMENTATION_OPTIONS.speckFraction,
    multimask: chosen.multimask ?? DEFAULT_SEGMENTATION_OPTIONS.multimask,
    clickConsistency: chosen.clickConsistency ?? DEFAULT_SEGMENTATION_OPTIONS.clickConsistency,
    upsampling: chosen.upsampling ?? DEFAULT_SEGMENTATION_OPTIONS.upsampling,
    alignMaskPrompt: chosen.alignMaskPrompt ?? DEFAULT_SEGMENTATION_OPTIONS.alignMaskPrompt,
    progressiveMerge: chosen.progressiveMerge ?? DEFAULT_SEGMENTATION_OPTIONS.progressiveMerge,
    mirrorAverage: chosen.mirrorAverage ?? DEFAULT_SEGMENTATION_OPTIONS.mirrorAverage,
    shiftAverage: chosen.shiftAverage ?? DEFAULT_SEGMENTATION_OPTIONS.shiftAverage,
    cascadeRefine: chosen.cascadeRefine ?? DEFAULT_SEGMENTATION_OPTIONS.cascadeRefine,
  };
}

/** The part of the options that turns a mask into polygons. */
export type OutlineOptions = Pick<SegmentationOptions, 'tolerance' | 'speckFraction'>;

/** The smallest part (or hole) kept in the outline of a mask of `maskArea` pixels. */
export function speckArea(maskArea: number, speckFraction = DEFAULT_SEGMENTATION_OPTIONS.speckFraction): number {
  return Math.max(MIN_SPECK_PIXELS, Math.round(maskArea * speckFraction));
}
