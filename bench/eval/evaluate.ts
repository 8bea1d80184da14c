/**
 * Runs the protocol (../shared/eval/PROTOCOL.md) on one sample: up to N simulated clicks, the IoU
 * after each, and one box-prompt prediction. Refinements beyond the protocol baseline are switched
 * by `EvalOptions` so each can be measured with and without.
 */
import { DEFAULT_SEGMENTATION_OPTIONS } from '../../src/engine/options';
import type { PredictOptions } from '../../src/engine/engine';
import type { PhotoView } from '../../src/engine/decodeRule';
import { decodeRuleFor, NO_RULES, type RuleChoice } from './rules';
import type { MaskCandidate, RgbaImage, VisualPrompt } from '../../src/engine/types';
import { nextClick, type Click, type GroundTruth } from './clicker';
import { iou, type ImageResult } from './metrics';
import { containsPositiveClicks, cropImage, objectRoi, pasteMask, regionHeight, regionIou, regionWidth, remapLowResLogits, sameRegion, wholeImage, type Region } from './zoom';

/** The part of SegmentationEngine (src/engine) the evaluation uses. */
export interface InteractiveSegmenter {
  embed(
    image: RgbaImage,
    imageId?: string,
    options?: { mirrored?: boolean; views?: readonly PhotoView[] },
  ): Promise<{ imageKey: string; cacheHit: boolean; timings: { encoderMs: number } }>;
  predict(
    imageKey: string,
    prompt: VisualPrompt,
    options?: PredictOptions,
  ): Promise<{ candidates: MaskCandidate[]; timings: { decoderMs: number } }>;
}

export interface ZoomOptions {
  /** Zoom only once more than this many clicks were made (RITM: skip_clicks). */
  readonly skipClicks: number;
  readonly expansion: number;
  readonly minCropSize: number;
  /** The crop's sides are at least this share of the photo's longer side (context kept). */
  readonly minCropFraction?: number;
  /** Re-crop when the new ROI's IoU with the current one falls below this (RITM: recompute_thresh_iou). */
  readonly recomputeIou: number;
  /**
   * Zoom only when the crop magnifies the object at least this much (longest image side / longest
   * ROI side); otherwise keep the whole photo, whose context is worth more than a slight enlargement.
   * 1 = always zoom (RITM).
   */
  readonly minGain: number;
}

/**
 * What a rule asks of the engine: its own mirror averaging (src/engine/options.ts) and the bench's
 * decoding rules (./rules), which plug into `predict` through its hook.
 */
export interface EngineRuleOptions extends RuleChoice {
  readonly mirrorAverage: boolean;
}

export interface EvalOptions extends EngineRuleOptions {
  readonly maxClicks: number;
  /**
   * Click 1: 'score' = ask for multiple masks and keep the highest predicted IoU (protocol);
   * 'stability' = keep the highest predicted IoU × stability score (SAM's automatic mask generator
   * filters on both); 'single' = the engine's single-mask answer.
   */
  readonly firstClick: 'score' | 'stability' | 'single';
  /**
   * From click 2: 'on' = feed the previous low-res logits back as mask input (protocol); 'off' = never;
   * 'best-score' = decode both with and without the feedback and keep the higher predicted IoU
   * (a wrong previous mask can otherwise hold the model where it is: clicks stop having an effect).
   */
  readonly logitsFeedback: 'on' | 'off' | 'best-score';
  /** From click 2: ask for multiple masks and keep the highest predicted IoU (not protocol). */
  readonly laterMultimask: boolean;
  readonly zoom: ZoomOptions | null;
  /** Box prompt: 'single' = the engine's single-mask answer; 'best-score' = highest predicted IoU of all candidates. */
  readonly boxMode: 'single' | 'best-score' | 'off';
}

export const PROTOCOL_OPTIONS: EvalOptions = {
  maxClicks: 20,
  firstClick: 'score',
  logitsFeedback: 'on',
  laterMultimask: false,
  zoom: null,
  boxMode: 'single',
  ...NO_RULES,
  mirrorAverage: false,
};

/** SAM's single-mask answer, the previous logits fed back as they are: one look at the photo. */
const ONE_LOOK: EvalOptions = { ...PROTOCOL_OPTIONS, firstClick: 'single' };

const CONTEXT_ZOOM: ZoomOptions = { skipClicks: 1, expansion: 1.4, minCropSize: 0, minCropFraction: 0.5, recomputeIou: 0.5, minGain: 1.5 };

/**
 * Named rules the eval can run side by side on the same embeddings. 'protocol' is the published
 * protocol; 'product-before' is the engine's rule before issue 12 (its single-mask answer from click 1
 * on, previous logits fed back), which is also 'one-look', the studio's quick answer on a click;
 * 'engine' is the engine's default now (mirror averaging, see src/engine/options.ts).
 */
export const RULES = {
  protocol: PROTOCOL_OPTIONS,
  'product-before': ONE_LOOK,
  'choose-tokens': { ...PROTOCOL_OPTIONS, firstClick: 'single', clickConsistency: 'tokens' },
  'choose-fresh': { ...PROTOCOL_OPTIONS, firstClick: 'single', clickConsistency: 'tokens-and-fresh' },
  'local-correction': { ...PROTOCOL_OPTIONS, firstClick: 'single', clickConsistency: 'local' },
  'edge-aware': { ...PROTOCOL_OPTIONS, firstClick: 'single', upsampling: 'edge-aware' },
  'aligned-mask-prompt': { ...PROTOCOL_OPTIONS, firstClick: 'single', alignMaskPrompt: true },
  'progressive-merge': { ...PROTOCOL_OPTIONS, firstClick: 'single', progressiveMerge: true },
  'mirror-average': { ...PROTOCOL_OPTIONS, firstClick: 'single', mirrorAverage: true },
  'shift-average': { ...PROTOCOL_OPTIONS, firstClick: 'single', shiftAverage: true },
  'mirror-shift-average': { ...PROTOCOL_OPTIONS, firstClick: 'single', mirrorAverage: true, shiftAverage: true },
  // Zoom-in that keeps context: crops of at least half the photo's longer side (a quarter of the photo
  // or more), only where that magnifies the object by 1.5× or more.
  'zoom-context': { ...PROTOCOL_OPTIONS, firstClick: 'single', zoom: CONTEXT_ZOOM },
  'mirror-zoom-context': { ...PROTOCOL_OPTIONS, firstClick: 'single', zoom: CONTEXT_ZOOM, mirrorAverage: true },
  'cascade-refine': { ...PROTOCOL_OPTIONS, firstClick: 'single', cascadeRefine: true },
  'mirror-cascade': { ...PROTOCOL_OPTIONS, firstClick: 'single', mirrorAverage: true, cascadeRefine: true },
  // The engine's rule without the mirror image: the studio's quick answer on the click (the same
  // options as product-before, named for what it is now).
  'one-look': ONE_LOOK,
  engine: { ...PROTOCOL_OPTIONS, firstClick: 'single', mirrorAverage: DEFAULT_SEGMENTATION_OPTIONS.mirrorAverage },
} as const satisfies Record<string, EvalOptions>;
export type RuleName = keyof typeof RULES | 'custom';

export interface SampleRun extends ImageResult {
  readonly clicks: readonly Click[];
  /** How many times the encoder ran (1 + zoom-in crops). */
  readonly encodings: number;
  readonly encoderMs: number;
  readonly decoderMs: number;
  /** Predictions after the click counts asked for (contact sheets), by click count. */
  readonly masksAt: ReadonlyMap<number, Uint8Array>;
}

/** SAM's stability score: IoU of the mask thresholded at +offset and at −offset (offset 1 as in SAM's AMG). */
export function stabilityScore(logits: Float32Array, offset = 1): number {
  let inner = 0;
  let outer = 0;
  for (let i = 0; i < logits.length; i++) {
    if (logits[i] > offset) inner++;
    if (logits[i] > -offset) outer++;
  }
  return outer === 0 ? 1 : inner / outer;
}

function mostStable(candidates: readonly MaskCandidate[]): MaskCandidate | undefined {
  const rank = (c: MaskCandidate) => c.score * stabilityScore(c.lowResLogits);
  return candidates.reduce<MaskCandidate | undefined>((best, c) => (!best || rank(c) > rank(best) ? c : best), undefined);
}

function highestScore(candidates: readonly MaskCandidate[]): MaskCandidate | undefined {
  return candidates.reduce<MaskCandidate | undefined>((best, c) => (!best || c.score > best.score ? c : best), undefined);
}

/** The tightest box around the object (ignore band excluded) as the service's center-anchored box. */
export function tightObjectBox(truth: GroundTruth): { x: number; y: number; width: number; height: number } {
  let x0 = truth.width;
  let y0 = truth.height;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < truth.height; y++) {
    for (let x = 0; x < truth.width; x++) {
      if (truth.labels[y * truth.width + x] !== 1) continue;
      x0 = Math.min(x0, x);
      x1 = Math.max(x1, x);
      y0 = Math.min(y0, y);
      y1 = Math.max(y1, y);
    }
  }
  if (x1 < 0) throw new Error('ground truth has no object pixel');
  // SAM's box is [x0, y0, x1, y1] in pixel indices; the center-anchored form gives back exactly those corners.
  const width = Math.max(1, x1 - x0);
  const height = Math.max(1, y1 - y0);
  return { x: x0 + width / 2, y: y0 + height / 2, width, height };
}

export async function evaluateSample(
  engine: InteractiveSegmenter,
  name: string,
  image: RgbaImage,
  truth: GroundTruth,
  options: EvalOptions,
  keepMasksAt: readonly number[] = [],
): Promise<SampleRun> {
  const { width, height } = image;
  if (truth.width !== width || truth.height !== height) {
    throw new Error(`${name}: image is ${width}x${height} but ground truth is ${truth.width}x${truth.height}`);
  }
  let encodings = 0;
  let encoderMs = 0;
  let decoderMs = 0;
  // The pictures embedded for this sample (the photo, zoom-in crops) by key: edge-aware upsampling's guide.
  const pictures = new Map<string, RgbaImage>();
  const rule = decodeRuleFor(options, (key) => pictures.get(key));
  const ruleOptions: PredictOptions = { mirrorAverage: options.mirrorAverage, rule };
  const embedRegion = async (region: Region): Promise<string> => {
    const whole = sameRegion(region, wholeImage(width, height));
    const id = whole ? name : `${name}@${region.x0},${region.y0},${region.x1},${region.y1}`;
    const picture = whole ? image : cropImage(image, region);
    const result = await engine.embed(picture, id, { mirrored: options.mirrorAverage, views: rule.views });
    pictures.set(result.imageKey, picture);
    if (!result.cacheHit) {
      encodings++;
      encoderMs += result.timings.encoderMs;
    }
    return result.imageKey;
  };

  let region = wholeImage(width, height);
  let imageKey = await embedRegion(region);
  // The box prompt runs first, while the whole image's embedding is certainly cached.
  let boxIou: number | undefined;
  if (options.boxMode !== 'off') {
    const result = await engine.predict(
      imageKey,
      { box: tightObjectBox(truth) },
      { ...ruleOptions, multimask: options.boxMode === 'best-score' },
    );
    decoderMs += result.timings.decoderMs;
    const chosen = options.boxMode === 'best-score' ? highestScore(result.candidates) : result.candidates[0];
    boxIou = iou(truth, chosen ? chosen.mask.data : new Uint8Array(width * height));
  }

  let prediction: Uint8Array = new Uint8Array(width * height);
  let logits: Float32Array | undefined;
  const clicks: Click[] = [];
  const ious: number[] = [];
  const masksAt = new Map<number, Uint8Array>();

  for (let k = 1; k <= options.maxClicks; k++) {
    const click = nextClick(truth, prediction, clicks);
    clicks.push(click);

    if (options.zoom && k > options.zoom.skipClicks) {
      let roi = objectRoi(prediction, width, height, clicks, options.zoom);
      if (roi && Math.max(width, height) / Math.max(regionWidth(roi), regionHeight(roi)) < options.zoom.minGain) {
        roi = wholeImage(width, height);
      }
      if (
        roi &&
        !sameRegion(roi, region) &&
        (!containsPositiveClicks(region, clicks) ||
          regionIou(roi, region) < options.zoom.recomputeIou ||
          // The first zoom replaces the whole image whenever the object ROI is smaller.
          sameRegion(region, wholeImage(width, height)))
      ) {
        if (logits) logits = remapLowResLogits(logits, region, roi);
        region = roi;
        imageKey = await embedRegion(region);
      }
    }

    const first = k === 1;
    const multimask = first ? options.firstClick !== 'single' : options.laterMultimask;
    const points = clicks.map((c) => ({ x: c.x - region.x0, y: c.y - region.y0, positive: c.positive }));
    const choose = (candidates: readonly MaskCandidate[]) =>
      !multimask
        ? candidates[0]
        : first && options.firstClick === 'stability'
          ? mostStable(candidates)
          : highestScore(candidates);
    const decode = async (prompt: VisualPrompt) => {
      const result = await engine.predict(imageKey, prompt, { multimask, ...ruleOptions });
      decoderMs += result.timings.decoderMs;
      return choose(result.candidates);
    };
    const feedback = !first && logits && options.logitsFeedback !== 'off' ? logits : undefined;
    let chosen = await decode(feedback ? { points, maskInput: feedback } : { points });
    if (feedback && options.logitsFeedback === 'best-score') {
      const fresh = await decode({ points });
      if (fresh && (!chosen || fresh.score > chosen.score)) chosen = fresh;
    }

    if (chosen) {
      logits = chosen.lowResLogits;
      prediction = sameRegion(region, wholeImage(width, height))
        ? chosen.mask.data
        : pasteMask(chosen.mask.data, region, width, height);
    } else {
      // Every candidate was empty: nothing predicted, and no logits worth feeding back.
      logits = undefined;
      prediction = new Uint8Array(width * height);
    }
    ious.push(iou(truth, prediction));
    if (keepMasksAt.includes(k)) masksAt.set(k, prediction);
  }

  return { name, ious, boxIou, clicks, encodings, encoderMs, decoderMs, masksAt };
}
