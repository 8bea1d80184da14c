/**
 * Segment everything: every object and region of one photo as proposals, without a prompt from the
 * person. Two rules on the same machinery:
 *
 * - `grid` — SAM's automatic mask generator (segment_anything/automatic_mask_generator.py), the
 *   baseline: a 32×32 grid of single-click prompts, the three multimask tokens of each, kept when the
 *   predicted IoU ≥ 0.88 and the stability score (IoU of the mask at logit +1 vs −1) ≥ 0.95, duplicates
 *   removed by box NMS at 0.7 (the higher predicted IoU wins), small holes and islands cleaned up.
 * - `objects` (the shipped rule) — MobileSAMv2's object-aware prompts: the detectors' boxes (every
 *   class, low score) as box prompts first, each one decoder run for a whole object; then a coarse
 *   grid whose points skip what is already covered, and what an earlier prompt's confident mask
 *   already outlined (kept or not), so the decoder runs only where nothing was found (coarse to
 *   fine). What is found first stays: a later, overlapping candidate is dropped.
 *
 * Differences from SAM's code, on purpose: the filters and the NMS box read the 256² logits (SAM reads
 * the upsampled mask), so only kept candidates are upsampled; NMS is incremental (a candidate is
 * compared with what is kept so far), which lets proposals be shown as they are found. One prompt per
 * decoder run: the decoder accepts a batch of prompts once its batch dimension is made dynamic, but on
 * CPU the batch costs as much as the runs one by one (docs/RESULTS.md), so nothing is gained.
 *
 * Cancellable: with `signal` aborted, no decoder run starts and the promise rejects with the signal's
 * reason. Pure engine code: runs in the browser worker, the server, the CLI and the eval alike.
 */
import { bestToken, stabilityScore, tokenLogits, validLowResRegion, type TokenOutputs } from '../candidates';
import { EmbeddingMissingError, type SegmentationEngine } from '../engine';
import type { ModelFrame } from '../frame';
import { boxIoU, suppressOverlaps, type ConceptDetector, type CornerBox } from '../text/detector';
import { cornerToCenterBox } from '../text/pipeline';
import { mergeDetections } from '../text/pool';
import type { BinaryMask, RgbaImage, VisualPrompt } from '../types';
import { maskArea, placeCrop, upsampleLogitsToCrop } from '../upsample';
import { ExploredCells, lowResBox } from './lowRes';
import { pointGrid } from './pointGrid';
import { removeSmallRegions } from './regions';

export type EverythingRule = 'grid' | 'objects';
export const EVERYTHING_RULES: readonly EverythingRule[] = ['grid', 'objects'];
export const DEFAULT_EVERYTHING_RULE: EverythingRule = 'objects';

/** Which prompt found a proposal: a grid point, or a detector's box (then `label` is its class). */
export type ProposalSource = 'grid' | 'detector';

export interface Proposal {
  /** In the order found, from 0. */
  readonly id: number;
  readonly mask: BinaryMask;
  readonly area: number;
  /** Around the mask, image pixels (from the low-resolution logits). */
  readonly box: CornerBox;
  /** predictedIoU × stability, in [0, 1]: proposals are ranked by it. */
  readonly confidence: number;
  readonly predictedIoU: number;
  readonly stability: number;
  readonly source: ProposalSource;
  /** The detector's class, for proposals from a detector's box. */
  readonly label?: string;
  /** The detector's (calibrated) score, for proposals from a detector's box. */
  readonly detectorScore?: number;
  readonly prompt: VisualPrompt;
}

export interface EverythingProgress {
  readonly stage: 'detect' | 'boxes' | 'grid';
  /** Decoder runs done and planned so far (the plan grows when a finer grid stage starts). */
  readonly decoded: number;
  readonly planned: number;
  /** The proposals kept so far, best first: results as they are found. */
  readonly proposals: readonly Proposal[];
}

export interface EverythingSettings {
  /** Points per side of each grid stage, coarse to fine (`grid`: [32]; `objects`: [8]). */
  readonly gridSides: readonly number[];
  /** Grid points inside an already kept proposal are not decoded (`objects`: true, SAM: false). */
  readonly skipCovered: boolean;
  /**
   * Grid points inside a confident mask the decoder returned for an earlier prompt (kept or not: one
   * that passed its stage's predicted-IoU bar) are not decoded either (`objects`: true, SAM: false).
   */
  readonly skipExplored: boolean;
  /** Grid candidates need at least this predicted IoU (SAM: 0.88). */
  readonly predIouThreshold: number;
  /** … and at least this stability score (SAM: 0.95) … */
  readonly stabilityThreshold: number;
  /** … measured between the logit thresholds +offset and −offset (SAM: 1.0). */
  readonly stabilityOffset: number;
  /** Two proposals whose boxes overlap more than this are one (SAM: 0.7). */
  readonly boxNmsIou: number;
  /** Holes and islands smaller than this (pixels) are cleaned up (SAM's example: 100). */
  readonly minRegionArea: number;
  /** At most this many proposals, best first. */
  readonly maxProposals: number;
  /** Detector boxes: at least this calibrated score, at most this many, best first (`objects` only). */
  readonly minDetectorScore: number;
  readonly maxBoxes: number;
  /**
   * The detectors (ConceptDetector.name) whose boxes prompt; the others given are not run (`objects`
   * only). Detectors of whole objects: not BlazeFace, whose faces are parts of the people the COCO
   * detectors already box (a detector run and decoder runs for proposals that repeat part of one).
   */
  readonly boxDetectors: readonly string[];
  /** A box prompt's mask needs at least this predicted IoU (a box leaves less doubt than a click). */
  readonly boxPredIouThreshold: number;
}

export const EVERYTHING_SETTINGS: Readonly<Record<EverythingRule, EverythingSettings>> = {
  grid: {
    gridSides: [32],
    skipCovered: false,
    skipExplored: false,
    predIouThreshold: 0.88,
    stabilityThreshold: 0.95,
    stabilityOffset: 1,
    boxNmsIou: 0.7,
    minRegionArea: 100,
    maxProposals: 100,
    minDetectorScore: 1,
    maxBoxes: 0,
    boxDetectors: [],
    boxPredIouThreshold: 1,
  },
  objects: {
    gridSides: [8],
    skipCovered: true,
    skipExplored: true,
    // SAM's 0.88 / 0.95 were set for ViT-H: with this small decoder they keep almost no mask that
    // matches an object (docs/RESULTS.md, issue 26), so the grid stage asks for less.
    predIouThreshold: 0.7,
    stabilityThreshold: 0.7,
    stabilityOffset: 1,
    boxNmsIou: 0.7,
    minRegionArea: 100,
    maxProposals: 100,
    minDetectorScore: 0.1,
    maxBoxes: 40,
    boxDetectors: ['centernet', 'coco-ssd', 'open-images-ssd'],
    boxPredIouThreshold: 0.5,
  },
};

export interface EverythingOptions extends Partial<EverythingSettings> {
  readonly rule?: EverythingRule;
  /** The photo and the detectors whose boxes the `objects` rule prompts with (none: grid stages only). */
  readonly image?: RgbaImage;
  readonly detectors?: readonly ConceptDetector[];
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: EverythingProgress) => void;
}

export interface EverythingResult {
  readonly rule: EverythingRule;
  readonly proposals: Proposal[];
  readonly decoderRuns: number;
  readonly timings: { readonly detectMs: number; readonly decodeMs: number; readonly totalMs: number };
}

/** What segment-everything needs of the engine (a wrapper can count or delay the decoder runs). */
export type EverythingEngine = Pick<SegmentationEngine, 'decodeTokens' | 'getEmbedding'>;

interface Candidate {
  readonly logits: Float32Array;
  readonly box: CornerBox;
  readonly predictedIoU: number;
  readonly stability: number;
  readonly source: ProposalSource;
  readonly label?: string;
  readonly detectorScore?: number;
  readonly prompt: VisualPrompt;
}

const now = (): number => performance.now();

export async function segmentEverything(engine: EverythingEngine, imageKey: string, options: EverythingOptions = {}): Promise<EverythingResult> {
  const rule = options.rule ?? DEFAULT_EVERYTHING_RULE;
  const settings: EverythingSettings = { ...EVERYTHING_SETTINGS[rule], ...definedOnly(options) };
  const { signal, onProgress } = options;
  const size = engine.getEmbedding(imageKey);
  if (!size) throw new EmbeddingMissingError(imageKey);
  const started = now();
  const timings = { detectMs: 0, decodeMs: 0, totalMs: 0 };
  let kept: Proposal[] = [];
  let nextId = 0;
  let decoded = 0;
  let planned = 0;
  let covered: Uint8Array | undefined;
  let explored: ExploredCells | undefined;
  const markExplored = (logits: Float32Array, frame: ModelFrame): void => {
    if (!settings.skipExplored) return;
    explored ??= new ExploredCells(frame);
    explored.add(logits);
  };
  let stage: EverythingProgress['stage'] = 'detect';

  const report = () => onProgress?.({ stage, decoded, planned, proposals: ranked(kept) });
  const decode = async (prompt: VisualPrompt): Promise<{ outputs: TokenOutputs; frame: ModelFrame }> => {
    signal?.throwIfAborted();
    const t0 = now();
    const answer = await engine.decodeTokens(imageKey, prompt);
    timings.decodeMs += now() - t0;
    decoded++;
    return answer;
  };
  // Incremental NMS: `objects` keeps what it found first; `grid` keeps the higher predicted IoU, as SAM.
  const consider = (candidate: Candidate, frame: ModelFrame): void => {
    const overlapping = kept.filter((k) => boxIoU(k.box, candidate.box) > settings.boxNmsIou);
    if (overlapping.length > 0 && (rule === 'objects' || overlapping.some((k) => k.predictedIoU >= candidate.predictedIoU))) return;
    // Upsampled and cleaned over the rectangle that can be positive only: the same mask, at the cost of the object's size.
    const crop = upsampleLogitsToCrop(candidate.logits, frame);
    if (!crop) return;
    const cleaned = { ...crop, mask: removeSmallRegions(crop.mask, settings.minRegionArea) };
    const area = maskArea(cleaned.mask);
    if (area === 0) return;
    const mask = placeCrop(cleaned, frame.width, frame.height);
    kept = kept.filter((k) => !overlapping.includes(k));
    const { logits: _, ...rest } = candidate;
    kept.push({ ...rest, id: nextId++, mask, area, confidence: candidate.predictedIoU * candidate.stability });
    if (settings.skipCovered) {
      // Only the crop can hold a set pixel.
      covered ??= new Uint8Array(mask.data.length);
      const { x, y, mask: part } = cleaned;
      for (let row = 0; row < part.height; row++) {
        const from = row * part.width;
        const to = (y + row) * frame.width + x;
        for (let col = 0; col < part.width; col++) covered[to + col] |= part.data[from + col];
      }
    }
  };
  const candidateOf = (outputs: TokenOutputs, token: number, frame: ModelFrame, origin: Omit<Candidate, 'logits' | 'box' | 'predictedIoU' | 'stability'>) => {
    const logits = tokenLogits(outputs, token);
    const box = lowResBox(logits, frame);
    if (!box) return undefined;
    const stability = stabilityScore(logits, validLowResRegion(frame), settings.stabilityOffset);
    return { ...origin, logits, box, predictedIoU: Math.min(1, Math.max(0, outputs.iou[token])), stability };
  };

  // Object-aware prompts: one box per object a detector sees, whatever its class.
  const boxDetectors = (options.detectors ?? []).filter((d) => settings.boxDetectors.includes(d.name));
  if (rule === 'objects' && options.image && boxDetectors.length > 0 && settings.maxBoxes > 0) {
    signal?.throwIfAborted();
    report();
    const t0 = now();
    const perDetector = [];
    for (const detector of boxDetectors) {
      perDetector.push(await detector.detect(options.image, { minScore: Math.min(0.05, settings.minDetectorScore) }));
      signal?.throwIfAborted();
    }
    // Boxes of any class on one object are one prompt: the best-scored box stays.
    const merged = mergeDetections(perDetector, settings.minDetectorScore);
    const boxes = suppressOverlaps(merged, (a, b) => boxIoU(a.box, b.box), settings.boxNmsIou).slice(0, settings.maxBoxes);
    timings.detectMs = now() - t0;
    stage = 'boxes';
    planned += boxes.length;
    for (const detection of boxes) {
      const prompt: VisualPrompt = { box: cornerToCenterBox(detection.box) };
      const { outputs, frame } = await decode(prompt);
      const token = bestToken(outputs, frame, { ambiguous: false, unstableFallback: true });
      const candidate = candidateOf(outputs, token, frame, { source: 'detector', label: detection.label, detectorScore: detection.score, prompt });
      if (candidate && candidate.predictedIoU >= settings.boxPredIouThreshold) {
        markExplored(candidate.logits, frame);
        consider(candidate, frame);
      }
      report();
    }
  }

  stage = 'grid';
  // Covered and explored only grow: a point skipped once stays skipped, so the plan drops it as soon as it is.
  const answered = (point: { x: number; y: number }): boolean =>
    Boolean(covered?.[Math.floor(point.y) * size.width + Math.floor(point.x)]) || Boolean(explored?.has(point.x, point.y));
  for (const side of settings.gridSides) {
    let pending = pointGrid(side, size.width, size.height).filter((p) => !answered(p));
    planned += pending.length;
    for (let point = pending.shift(); point; point = pending.shift()) {
      const prompt: VisualPrompt = { points: [point] };
      const { outputs, frame } = await decode(prompt);
      // Tokens 1..3, the ambiguous click's subpart / part / whole, as SAM's generator asks for.
      for (let token = 1; token < outputs.tokens; token++) {
        const candidate = candidateOf(outputs, token, frame, { source: 'grid', prompt });
        if (!candidate || candidate.predictedIoU < settings.predIouThreshold) continue;
        markExplored(candidate.logits, frame);
        if (candidate.stability >= settings.stabilityThreshold) consider(candidate, frame);
      }
      const left = pending.filter((p) => !answered(p));
      planned -= pending.length - left.length;
      pending = left;
      report();
    }
  }
  signal?.throwIfAborted();
  timings.totalMs = now() - started;
  return { rule, proposals: ranked(kept).slice(0, settings.maxProposals), decoderRuns: decoded, timings };
}

function ranked(proposals: readonly Proposal[]): Proposal[] {
  return [...proposals].sort((a, b) => b.confidence - a.confidence || a.id - b.id);
}

function definedOnly(options: EverythingOptions): Partial<EverythingSettings> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(EVERYTHING_SETTINGS.grid) as (keyof EverythingSettings)[]) {
    if (options[key] !== undefined) out[key] = options[key];
  }
  return out as Partial<EverythingSettings>;
}
