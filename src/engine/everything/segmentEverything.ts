/**
 * Segment everything: every object and region of one photo as proposals, without a prompt from the
 * person. Three rules on the same machinery:
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
 * - `thorough` (bulk labelling, `BULK_EVERYTHING_RULE`) — `objects`' boxes without its grid, then SAHI's slicing: the
 *   detectors run again on overlapping tiles, where a small object is larger in their input; each
 *   tile where they box something not yet found is re-encoded at the encoder's full resolution and
 *   those boxes are decoded on it, the masks mapped back onto the photo (tiles.ts). A tile's mask that
 *   reaches one of its edges inside the photo is dropped (the object goes on beyond it), and one that
 *   repeats a kept proposal too (the same incremental NMS across tiles). Up to four more encoder runs.
 *   The detectors' weaker boxes (score ≥ 0.05, a small box ≥ 0.02) prompt too, on the photo and on the tiles. Only a box
 *   the photo's encoder sees small is decoded on its tile; a tile's larger new box is decoded on the
 *   photo's embedding, so a tile with no small new box is never encoded, and a tile where the photo's
 *   own pass saw nothing small is not looked at. A tile is encoded only for a small box the detectors
 *   are fairly sure of; its weaker small boxes are decoded on the photo's embedding too.
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
import { stabilityScore, tokenLogits, validLowResRegion, type TokenOutputs } from '../candidates';
import { EmbeddingMissingError, type SegmentationEngine } from '../engine';
import type { ModelFrame } from '../frame';
import { boxIoU, suppressOverlaps, type ConceptDetector, type CornerBox, type Detection } from '../text/detector';
import { cornerToCenterBox } from '../text/pipeline';
import { mergeDetections } from '../text/pool';
import type { BinaryMask, PointPrompt, RgbaImage, VisualPrompt } from '../types';
import { maskArea, placeCrop, upsampleLogitsToCrop } from '../upsample';
import { boxPromptToken, type BoxMaskChoice } from './boxToken';
import { rankScore, withLookEvidence, type ProposalRanking, type RankingRule } from './ranking';
import { ExploredCells, lowResBox } from './lowRes';
import { askAhead } from './askAhead';
import { pointGrid } from './pointGrid';
import { removeSmallRegions } from './regions';
import { boxAtInnerEdge, cutByTileEdge, holdsCentreOf, mergeAcrossCrops, seenSmall, splitBySize, tileBoxToPhoto, tileCropToPhoto, tileRects, unfoundInTile, type TileRect } from './tiles';
import { cropImage } from '../crop';

export type EverythingRule = 'grid' | 'objects' | 'thorough';
export const EVERYTHING_RULES: readonly EverythingRule[] = ['grid', 'objects', 'thorough'];
/** What the studio's button and the API answer with when no rule is asked for: fast enough to wait for. */
export const DEFAULT_EVERYTHING_RULE: EverythingRule = 'objects';
/** What bulk labelling (jobs over many photos, nobody waiting on one) runs: more encoder passes, more found. */
export const BULK_EVERYTHING_RULE: EverythingRule = 'thorough';

/** Which prompt found a proposal: a grid point, or a detector's box (then `label` is its class). */
export type ProposalSource = 'grid' | 'detector';

export interface Proposal {
  /** In the order found, from 0. */
  readonly id: number;
  readonly mask: BinaryMask;
  readonly area: number;
  /** Around the mask, image pixels (from the low-resolution logits). */
  readonly box: CornerBox;
  /** predictedIoU × stability, in [0, 1]: the decoder's opinion of its mask. */
  readonly confidence: number;
  /** What proposals are ranked by, in [0, 1]: the confidence, with `ranking` 'mask and detector' times the detectors' evidence (ranking.ts). */
  readonly rankScore: number;
  readonly predictedIoU: number;
  readonly stability: number;
  readonly source: ProposalSource;
  /** The detector's class, for proposals from a detector's box. */
  readonly label?: string;
  /** The detector's (calibrated) score, for proposals from a detector's box. */
  readonly detectorScore?: number;
  /** For proposals from a detector's box with `boxMaskChoice` 'box agreement': box IoU of the mask's outline with that box. */
  readonly boxAgreement?: number;
  /** The highest score any look (the photo, a tile) gave a box of this object: `detectorScore` or a tile's box repeating it. */
  readonly strongestDetectorScore?: number;
  readonly prompt: VisualPrompt;
  /** The tile whose re-encoded picture found it (photo pixels); none: the whole photo (`thorough` only). */
  readonly tile?: TileRect;
}

export interface EverythingProgress {
  readonly stage: 'detect' | 'boxes' | 'grid' | 'tiles';
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
  /**
   * A box the photo's encoder sees small (under `tileBoxMaxPatches`) needs only this calibrated score:
   * the detectors score small and crowded objects low, and a small box's decoder run is what finds
   * them. At or above `minDetectorScore`: the same floor for every box.
   */
  readonly minSmallBoxScore: number;
  readonly maxBoxes: number;
  /**
   * The detectors (ConceptDetector.name) whose boxes prompt; the others given are not run (`objects`
   * only). Detectors of whole objects: not BlazeFace, whose faces are parts of the people the COCO
   * detectors already box (a detector run and decoder runs for proposals that repeat part of one).
   */
  readonly boxDetectors: readonly string[];
  /** A box prompt's mask needs at least this predicted IoU (a box leaves less doubt than a click). */
  readonly boxPredIouThreshold: number;
  /**
   * After the whole photo, `tilesPerSide` × `tilesPerSide` overlapping tiles are each re-encoded at the
   * encoder's full resolution, and the detectors and `tileGridSides` prompt on them (SAHI's slicing):
   * small objects come out larger. 0 or 1: no tiles (`thorough` only).
   */
  readonly tilesPerSide: number;
  /** Share of a tile's side shared with its neighbour. */
  readonly tileOverlap: number;
  /** Grid stages inside each tile, points per side (after the tile's detector boxes). */
  readonly tileGridSides: readonly number[];
  /**
   * A tile's grid point inside a mask the whole photo's pass kept or outlined is not decoded (true), or
   * is asked again at the tile's resolution (false): small objects on a large one (cups on a table)
   * lie inside the large one's mask. The tile's own masks are skipped either way, as `skipCovered` and
   * `skipExplored` say.
   */
  readonly tileSkipsPhotoAnswers: boolean;
  /**
   * Across crops, a tile's whole mask replaces what the photo's pass kept of the same object, and a
   * tile's boxes are asked again even where the photo's pass found something (SAM's generator prefers
   * the smaller crop's mask): the tile sees a small object at a higher resolution. A tile's box at one
   * of its inner edges is not decoded (its mask would be dropped as cut). False: what was found first
   * stays, and a tile asks only about boxes no proposal repeats.
   */
  readonly preferSmallerCrop: boolean;
  /**
   * A tile's new box is decoded on the tile's own embedding only when its longer side spans fewer than
   * this many of the photo encoder's patches: a larger object is already resolved on the photo's
   * embedding, so it is decoded there, and a tile left with no such box is not encoded at all (an
   * encoder run costs many decoder runs). Infinity: every new box on its tile.
   */
  readonly tileBoxMaxPatches: number;
  /**
   * Tiles only for a photo whose own pass saw something small (a detector's box or a kept proposal
   * under `tileBoxMaxPatches`): without a tile grid, a tile asks only about small boxes, and a photo
   * of large objects has none to ask about (`thorough` only; a tile grid always tiles).
   */
  readonly tilesNeedSmallEvidence: boolean;
  /**
   * With `tilesNeedSmallEvidence`, each tile needs its own: a tile in which the photo's pass saw
   * nothing small (no small box or proposal centred in it) is skipped, detectors and encoder alike.
   */
  readonly smallEvidencePerTile: boolean;
  /**
   * A tile is encoded only for a small new box scored at least this; a tile whose small new boxes are
   * all weaker has them decoded on the photo's embedding instead, like its large ones (an encoder run
   * costs many decoder runs, and a weak box is mostly a wrong one). 0: any small box encodes its tile.
   */
  readonly tileEncodeMinScore: number;
  /**
   * Whether a tile is ever encoded. Without, a tile's detectors still look at it at twice the
   * resolution, and every box they find is decoded on the photo's embedding.
   */
  readonly encodeTiles: boolean;
  /**
   * Which of the decoder's four masks answers a detector's box: SAM's rule ('sam'), or the one whose
   * outline agrees best with the box ('box agreement', boxToken.ts; the same decoder run).
   */
  readonly boxMaskChoice: BoxMaskChoice;
  /**
   * A box the photo's encoder sees small (under `tileBoxMaxPatches`) is asked with a positive click at
   * its centre as well: in a crowd a small box also covers parts of the neighbours, and the click says
   * which object is meant. The same one decoder run.
   */
  readonly smallBoxCentreClick: boolean;
  /**
   * Grid stages, points per side, inside each tile the detectors looked at (one where the photo's pass saw
   * something small), decoded on the photo's embedding: denser clicks only where small objects cluster,
   * for those no detector boxes. Points skip what is covered and explored, as `skipCovered` and
   * `skipExplored` say (`thorough` only).
   */
  readonly clusterGridSides: readonly number[];
  /** How proposals are ordered inside `maxProposals` (ranking.ts). */
  readonly ranking: ProposalRanking;
}

const OBJECTS_SETTINGS: EverythingSettings = {
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
  minSmallBoxScore: 0.1,
  maxBoxes: 40,
  boxDetectors: ['centernet', 'coco-ssd', 'open-images-ssd'],
  boxPredIouThreshold: 0.5,
  tilesPerSide: 0,
  tileOverlap: 0,
  tileGridSides: [],
  tileSkipsPhotoAnswers: true,
  preferSmallerCrop: false,
  tileBoxMaxPatches: Infinity,
  tilesNeedSmallEvidence: false,
  smallEvidencePerTile: false,
  tileEncodeMinScore: 0,
  encodeTiles: true,
  boxMaskChoice: 'sam',
  smallBoxCentreClick: false,
  clusterGridSides: [],
  ranking: 'mask',
};

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
    minSmallBoxScore: 1,
    maxBoxes: 0,
    boxDetectors: [],
    boxPredIouThreshold: 1,
    tilesPerSide: 0,
    tileOverlap: 0,
    tileGridSides: [],
    tileSkipsPhotoAnswers: true,
    preferSmallerCrop: false,
    tileBoxMaxPatches: Infinity,
    tilesNeedSmallEvidence: false,
    smallEvidencePerTile: false,
    tileEncodeMinScore: 0,
    encodeTiles: true,
    boxMaskChoice: 'sam',
    smallBoxCentreClick: false,
    clusterGridSides: [],
    ranking: 'mask',
  },
  objects: OBJECTS_SETTINGS,
  // The object-aware rule on the whole photo, then the detectors again on 2×2 tiles (SAHI's slicing):
  // a tile where they box something the photo's pass did not find is re-encoded and those boxes are
  // decoded on it. No grid on the tiles: its masks matched no instance the boxes had not (docs/RESULTS.md).
  thorough: {
    ...OBJECTS_SETTINGS,
    // Nobody waits on one photo of a bulk job: the detectors' weaker boxes are asked too. Small and
    // crowded objects are the ones a detector scores low; a wrong box costs a decoder run and a
    // proposal the learned classes reject.
    minDetectorScore: 0.05,
    // Weaker still for a small box: on COCO the small instances a bulk pass missed lay mostly in crowded
    // photos, where the detectors box them below 0.05 or a coarse mask misses them (docs/RESULTS.md, h37-bulk3).
    minSmallBoxScore: 0.02,
    maxBoxes: 60,
    // No grid on the photo: its decoder runs went to the small boxes above, and with those asked its
    // masks matched fewer instances than they cost runs (docs/RESULTS.md, h37-bulk3).
    gridSides: [],
    tilesPerSide: 2,
    // A fifth of a tile's side: an object cut by one tile's edge is whole in its neighbour up to that size.
    tileOverlap: 0.2,
    // Eight patches of 16 px: the decoder's mask of a smaller object rests on a handful of image
    // tokens, and the tile (about twice the resolution) gives it four times as many.
    tileBoxMaxPatches: 8,
    tilesNeedSmallEvidence: true,
    // A tile is looked at only where the photo's pass saw something small, and encoded only for a small
    // box the detectors are fairly sure of: on COCO the weaker small boxes matched no instance that
    // decoding them on the photo's embedding missed (docs/RESULTS.md, h37-bulkfast).
    smallEvidencePerTile: true,
    tileEncodeMinScore: 0.3,
    // The tiles' detectors are kept, their encoder runs are not: on COCO a tile's own embedding found
    // about as many small instances as it lost against decoding its boxes on the photo's, at about a
    // sixth of a photo's CPU (docs/RESULTS.md, end of the session of 2026-11-29 04:51).
    encodeTiles: false,
    // A crowded photo makes more proposals than are shown: the detectors' evidence, the tiles' second
    // look included, decides which weak boxes' masks are shown (docs/RESULTS.md, h37-bulkrank).
    ranking: 'mask and detector',
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

/** Where a decoder run was spent: the photo's boxes and grid, a tile's larger boxes asked on the photo, a tile's own boxes and grid. */
export const DECODE_PARTS = ['photo boxes', 'photo grid', 'tile boxes on photo', 'tile boxes', 'tile grid'] as const;
export type DecodePart = (typeof DECODE_PARTS)[number];

/** The work of one call, counted (times depend on the machine's load, counts do not). */
export interface EverythingWork {
  /** Decoder runs per part, and the proposals they added when they ran (a later one may replace one). */
  readonly decodes: Partial<Record<DecodePart, { runs: number; kept: number }>>;
  /** Pictures (the photo, tiles) the box detectors ran on; each pass runs every one of them. */
  readonly detectorPasses: number;
}

export interface EverythingResult {
  readonly rule: EverythingRule;
  readonly proposals: Proposal[];
  readonly decoderRuns: number;
  readonly work: EverythingWork;
  /** Encoder runs for tiles (the photo's own is the caller's), and their time. */
  readonly tilesEncoded: number;
  readonly timings: { readonly detectMs: number; readonly decodeMs: number; readonly tileEncodeMs: number; readonly totalMs: number };
}

/**
 * What segment-everything needs of the engine (a wrapper can count or delay the decoder runs);
 * `embedScratch` and `forget` only for tiles.
 */
export type EverythingEngine = Pick<SegmentationEngine, 'decodeTokens' | 'getEmbedding'> & Partial<Pick<SegmentationEngine, 'embedScratch' | 'forget' | 'decodeConcurrency'>>;

interface Candidate {
  readonly logits: Float32Array;
  readonly box: CornerBox;
  readonly predictedIoU: number;
  readonly stability: number;
  readonly source: ProposalSource;
  readonly label?: string;
  readonly detectorScore?: number;
  readonly boxAgreement?: number;
  readonly prompt: VisualPrompt;
  readonly tile?: TileRect;
}

const now = (): number => performance.now();

/** Where prompts are decoded: the photo's own embedding, or a tile's (prompts and masks in tile pixels). */
interface View {
  readonly imageKey: string;
  readonly tile?: TileRect;
  /** Confident masks the decoder returned on this view (its own 256² grid). */
  explored?: ExploredCells;
}

export async function segmentEverything(engine: EverythingEngine, imageKey: string, options: EverythingOptions = {}): Promise<EverythingResult> {
  const rule = options.rule ?? DEFAULT_EVERYTHING_RULE;
  const settings: EverythingSettings = { ...EVERYTHING_SETTINGS[rule], ...definedOnly(options) };
  const { signal, onProgress } = options;
  const size = engine.getEmbedding(imageKey);
  if (!size) throw new EmbeddingMissingError(imageKey);
  const tiled = settings.tilesPerSide > 1;
  if (tiled && !(options.image && engine.embedScratch)) throw new Error('segment everything with tiles needs the photo and an engine that can embed its tiles');
  const started = now();
  const timings = { detectMs: 0, decodeMs: 0, tileEncodeMs: 0, totalMs: 0 };
  let kept: Proposal[] = [];
  let nextId = 0;
  let decoded = 0;
  let planned = 0;
  let tilesEncoded = 0;
  const work = { decodes: {} as Record<string, { runs: number; kept: number }>, detectorPasses: 0 };
  let part: DecodePart = 'photo boxes';
  // What the photo's pass kept, and what the tiles' did: a tile may look again inside the former.
  let covered: Uint8Array | undefined;
  let coveredByTiles: Uint8Array | undefined;
  const markExplored = (view: View, logits: Float32Array, frame: ModelFrame): void => {
    if (!settings.skipExplored) return;
    view.explored ??= new ExploredCells(frame);
    view.explored.add(logits);
  };
  let stage: EverythingProgress['stage'] = 'detect';

  // The weakest box the rule asks: the floor the detectors' boxes are kept at, and the evidence a proposal no box asked for counts as.
  const weakestBox = Math.min(settings.minDetectorScore, settings.minSmallBoxScore);
  const rankingRule: RankingRule = { ranking: settings.ranking, weakestBoxScore: weakestBox };
  const ranked = (proposals: readonly Proposal[]): Proposal[] => [...proposals].sort((a, b) => b.rankScore - a.rankScore || a.id - b.id);
  const report = () => onProgress?.({ stage, decoded, planned, proposals: ranked(kept) });
  // Decoder runs asked ahead overlap: their time is the span while any is in progress, counted once.
  let decodesInProgress = 0;
  let decodeSpanStart = 0;
  const decode = async (view: View, prompt: VisualPrompt): Promise<{ outputs: TokenOutputs; frame: ModelFrame }> => {
    signal?.throwIfAborted();
    if (decodesInProgress++ === 0) decodeSpanStart = now();
    let answer: { outputs: TokenOutputs; frame: ModelFrame };
    try {
      answer = await engine.decodeTokens(view.imageKey, prompt);
    } finally {
      if (--decodesInProgress === 0) timings.decodeMs += now() - decodeSpanStart;
    }
    decoded++;
    (work.decodes[part] ??= { runs: 0, kept: 0 }).runs++;
    return answer;
  };
  // Incremental NMS: `objects` keeps what it found first; `grid` keeps the higher predicted IoU, as SAM.
  // Across tiles too: a tile's mask of an object already kept (from the photo or another tile) is dropped.
  const consider = (candidate: Candidate, frame: ModelFrame, view: View): void => {
    const overlapping =
      rule === 'grid' ? gridMerge(kept, candidate, settings.boxNmsIou) : mergeAcrossCrops(kept, candidate, settings.boxNmsIou, settings.preferSmallerCrop, size.width, size.height);
    if (!overlapping) return;
    // Upsampled and cleaned over the rectangle that can be positive only: the same mask, at the cost of the object's size.
    const crop = upsampleLogitsToCrop(candidate.logits, frame);
    if (!crop) return;
    const cleanedInView = { ...crop, mask: removeSmallRegions(crop.mask, settings.minRegionArea) };
    const cleaned = view.tile ? tileCropToPhoto(cleanedInView, view.tile) : cleanedInView;
    // The tile saw part of an object its edge cuts: the photo or the neighbouring tile sees it whole.
    if (view.tile && cutByTileEdge(cleaned, view.tile, size.width, size.height)) return;
    const area = maskArea(cleaned.mask);
    if (area === 0) return;
    const mask = placeCrop(cleaned, size.width, size.height);
    kept = kept.filter((k) => !overlapping.includes(k));
    const { logits: _, ...rest } = candidate;
    const confidence = candidate.predictedIoU * candidate.stability;
    const strongestDetectorScore = candidate.detectorScore;
    kept.push({ ...rest, id: nextId++, mask, area, confidence, rankScore: rankScore({ confidence, strongestDetectorScore }, rankingRule), strongestDetectorScore });
    work.decodes[part]!.kept++;
    if (settings.skipCovered) {
      // Only the crop can hold a set pixel.
      const into = view.tile ? (coveredByTiles ??= new Uint8Array(mask.data.length)) : (covered ??= new Uint8Array(mask.data.length));
      const { x, y, mask: part } = cleaned;
      for (let row = 0; row < part.height; row++) {
        const from = row * part.width;
        const to = (y + row) * size.width + x;
        for (let col = 0; col < part.width; col++) into[to + col] |= part.data[from + col];
      }
    }
  };
  const candidateOf = (view: View, outputs: TokenOutputs, token: number, frame: ModelFrame, origin: Omit<Candidate, 'logits' | 'box' | 'predictedIoU' | 'stability'>) => {
    const logits = tokenLogits(outputs, token);
    const boxInView = lowResBox(logits, frame);
    if (!boxInView) return undefined;
    const box = view.tile ? tileBoxToPhoto(boxInView, view.tile) : boxInView;
    const stability = stabilityScore(logits, validLowResRegion(frame), settings.stabilityOffset);
    return { ...origin, ...(view.tile ? { tile: view.tile } : {}), logits, box, predictedIoU: Math.min(1, Math.max(0, outputs.iou[token])), stability };
  };

  // Object-aware prompts: one box per object a detector sees, whatever its class.
  const boxDetectors = (options.detectors ?? []).filter((d) => settings.boxDetectors.includes(d.name));
  // Every box decoded on the photo's own embedding, photo pixels.
  const askedOnPhoto: CornerBox[] = [];
  const detectBoxes = async (view: View, picture: RgbaImage): Promise<Detection[]> => {
    if (rule === 'grid' || boxDetectors.length === 0 || settings.maxBoxes <= 0) return [];
    signal?.throwIfAborted();
    report();
    const t0 = now();
    work.detectorPasses++;
    const perDetector = [];
    for (const detector of boxDetectors) {
      perDetector.push(await detector.detect(picture, { minScore: Math.min(0.05, settings.minDetectorScore, settings.minSmallBoxScore) }));
      signal?.throwIfAborted();
    }
    // Boxes of any class on one object are one prompt: the best-scored box stays.
    const merged = mergeDetections(perDetector, weakestBox).filter((d) => d.score >= settings.minDetectorScore || seenSmall(d.box, size.width, size.height, settings.tileBoxMaxPatches));
    let boxes = suppressOverlaps(merged, (a, b) => boxIoU(a.box, b.box), settings.boxNmsIou).slice(0, settings.maxBoxes);
    if (view.tile) {
      const tile = view.tile;
      // A tile's box repeating a kept proposal is a second look at its object: the rank may read its score.
      kept = withLookEvidence(kept, boxes.map((d) => ({ box: tileBoxToPhoto(d.box, tile), score: d.score })), settings.boxNmsIou, rankingRule);
      // A tile's box around an object already kept asks again what was answered.
      boxes = tileBoxesToAsk(boxes, tile);
    }
    timings.detectMs += now() - t0;
    return boxes;
  };
  // With preferSmallerCrop a tile asks again about what the photo's pass found (its mask may be finer),
  // not about what a tile found, nor about an object its inner edge cuts.
  const tileBoxesToAsk = (boxes: Detection[], tile: TileRect): Detection[] => {
    if (!settings.preferSmallerCrop) return unfoundInTile(boxes, tile, kept.map((k) => k.box), settings.boxNmsIou);
    const whole = boxes.filter((d) => !boxAtInnerEdge(tileBoxToPhoto(d.box, tile), tile, size.width, size.height, 1));
    return unfoundInTile(whole, tile, kept.filter((k) => k.tile).map((k) => k.box), settings.boxNmsIou);
  };
  const promptBoxes = async (view: View, boxes: readonly Detection[], from: DecodePart): Promise<void> => {
    stage = view.tile ? 'tiles' : 'boxes';
    part = from;
    planned += boxes.length;
    if (!view.tile) askedOnPhoto.push(...boxes.map((d) => d.box));
    const prompts = boxes.map((detection): VisualPrompt => {
      const box = cornerToCenterBox(detection.box);
      const clickCentre = settings.smallBoxCentreClick && seenSmall(detection.box, size.width, size.height, settings.tileBoxMaxPatches);
      return clickCentre ? { box, points: [{ x: box.x, y: box.y, positive: true }] } : { box };
    });
    // A box's answer does not depend on what earlier boxes kept: an engine that decodes side by side
    // is asked ahead, and the answers are still weighed in the boxes' order.
    const answers = askAhead(
      prompts.map((prompt) => () => decode(view, prompt)),
      engine.decodeConcurrency ?? 1,
    );
    for (const [k, detection] of boxes.entries()) {
      const prompt = prompts[k];
      const { outputs, frame } = await answers.next();
      const { token, agreement } = boxPromptToken(outputs, frame, detection.box, settings.boxMaskChoice);
      const candidate = candidateOf(view, outputs, token, frame, { source: 'detector', label: detection.label, detectorScore: detection.score, ...(agreement === undefined ? {} : { boxAgreement: agreement }), prompt: promptInPhoto(prompt, view) });
      if (candidate && candidate.predictedIoU >= settings.boxPredIouThreshold) {
        markExplored(view, candidate.logits, frame);
        consider(candidate, frame, view);
      }
      report();
    }
  };

  // Covered and explored only grow: a point skipped once stays skipped, so the plan drops it as soon as it is.
  // Points in photo pixels; a tile's own explored cells are looked up in its pixels.
  const answered = (view: View, point: { x: number; y: number }): boolean => {
    const pixel = Math.floor(point.y) * size.width + Math.floor(point.x);
    if (coveredByTiles?.[pixel] || (view.tile && view.explored?.has(point.x - view.tile.x0, point.y - view.tile.y0))) return true;
    if (view.tile && !settings.tileSkipsPhotoAnswers) return false;
    return Boolean(covered?.[pixel]) || Boolean(whole.explored?.has(point.x, point.y));
  };
  // Points over `area` (photo pixels), asked on the view's embedding.
  const promptGrid = async (view: View, sides: readonly number[], area: TileRect = view.tile ?? { x0: 0, y0: 0, x1: size.width, y1: size.height }): Promise<void> => {
    part = view.tile ? 'tile grid' : 'photo grid';
    const origin = view.tile ?? { x0: 0, y0: 0 };
    for (const side of sides) {
      let pending = tileGrid(area, side).filter((p) => !answered(view, p));
      planned += pending.length;
      for (let point = pending.shift(); point; point = pending.shift()) {
        const prompt: VisualPrompt = { points: [{ ...point, x: point.x - origin.x0, y: point.y - origin.y0 }] };
        const { outputs, frame } = await decode(view, prompt);
        // Tokens 1..3, the ambiguous click's subpart / part / whole, as SAM's generator asks for.
        for (let token = 1; token < outputs.tokens; token++) {
          const candidate = candidateOf(view, outputs, token, frame, { source: 'grid', prompt: { points: [point] } });
          if (!candidate || candidate.predictedIoU < settings.predIouThreshold) continue;
          markExplored(view, candidate.logits, frame);
          if (candidate.stability >= settings.stabilityThreshold) consider(candidate, frame, view);
        }
        const left = pending.filter((p) => !answered(view, p));
        planned -= pending.length - left.length;
        pending = left;
        report();
      }
    }
  };

  const whole: View = { imageKey };
  const photoBoxes = options.image ? await detectBoxes(whole, options.image) : [];
  await promptBoxes(whole, photoBoxes, 'photo boxes');
  stage = 'grid';
  await promptGrid(whole, settings.gridSides);

  const smallSeen = tiled ? splitBySize([...photoBoxes, ...kept], size.width, size.height, settings.tileBoxMaxPatches).small : [];
  const needsEvidence = settings.tilesNeedSmallEvidence && settings.tileGridSides.length === 0;
  if (tiled && (!needsEvidence || smallSeen.length > 0)) {
    const photo = options.image!;
    for (const tile of tileRects(size.width, size.height, settings.tilesPerSide, settings.tileOverlap)) {
      signal?.throwIfAborted();
      if (needsEvidence && settings.smallEvidencePerTile && !smallSeen.some((seen) => holdsCentreOf(tile, seen.box))) continue;
      stage = 'tiles';
      report();
      const picture = cropImage(photo, tile);
      const tileKey = `${imageKey}#tile:${tile.x0},${tile.y0},${tile.x1},${tile.y1}`;
      const view: View = { imageKey: tileKey, tile };
      // The detectors cost a fraction of an encoder run: a tile where they see nothing new and small,
      // and where no grid point is left unanswered, is not encoded at all. Its larger new boxes are
      // asked on the photo's embedding, which the engine still holds.
      // A box at an edge the tile shares with the photo's inside is of an object the tile cuts: the
      // photo's pass or the neighbouring tile sees it whole (asked on the tile, its mask would be dropped).
      const uncut = (await detectBoxes(view, picture)).filter((d) => !boxAtInnerEdge(tileBoxToPhoto(d.box, tile), tile, size.width, size.height, 1));
      const bySize = splitBySize(uncut, size.width, size.height, settings.tileBoxMaxPatches);
      const worthEncoding = settings.encodeTiles && bySize.small.some((d) => d.score >= settings.tileEncodeMinScore);
      const boxes = worthEncoding ? bySize.small : [];
      // On the photo's embedding, a box like one already asked there (kept or not) would be answered the
      // same again: only a tile's finer view is worth a second look at it.
      const onPhoto = unfoundInTile(worthEncoding ? bySize.large : uncut, tile, [...kept.map((k) => k.box), ...askedOnPhoto], settings.boxNmsIou);
      await promptBoxes(whole, onPhoto.map((d) => ({ ...d, box: tileBoxToPhoto(d.box, tile) })), 'tile boxes on photo');
      await promptGrid(whole, settings.clusterGridSides, tile);
      stage = 'tiles';
      if (!settings.encodeTiles) continue;
      const gridLeft = settings.tileGridSides.some((side) => tileGrid(tile, side).some((p) => !answered(view, p)));
      if (boxes.length === 0 && !gridLeft) continue;
      const t0 = now();
      // Beside the engine's cache, not in it: a small cache would evict the photo itself for its tile.
      await engine.embedScratch!(picture, tileKey);
      timings.tileEncodeMs += now() - t0;
      tilesEncoded++;
      try {
        await promptBoxes(view, boxes, 'tile boxes');
        await promptGrid(view, settings.tileGridSides);
      } finally {
        // The tile's embedding is of no use to anyone else.
        engine.forget?.(tileKey);
      }
    }
  }
  signal?.throwIfAborted();
  timings.totalMs = now() - started;
  return { rule, proposals: ranked(kept).slice(0, settings.maxProposals), decoderRuns: decoded, work, tilesEncoded, timings };
}

/** A grid of points over a rectangle of the photo, in photo pixels. */
function tileGrid(area: TileRect, side: number): PointPrompt[] {
  return pointGrid(side, area.x1 - area.x0, area.y1 - area.y0).map((p) => ({ ...p, x: p.x + area.x0, y: p.y + area.y0 }));
}

/** A prompt given on a tile, in photo pixels (what the proposal reports it was found with). */
function promptInPhoto(prompt: VisualPrompt, view: View): VisualPrompt {
  const tile = view.tile;
  if (!tile) return prompt;
  return {
    ...(prompt.points ? { points: prompt.points.map((p) => ({ ...p, x: p.x + tile.x0, y: p.y + tile.y0 })) } : {}),
    ...(prompt.box ? { box: { ...prompt.box, x: prompt.box.x + tile.x0, y: prompt.box.y + tile.y0 } } : {}),
  };
}

/** SAM's grid rule: a candidate replaces the overlapping proposals unless one of them has a predicted IoU as high. */
function gridMerge<T extends { readonly box: CornerBox; readonly predictedIoU: number }>(kept: readonly T[], candidate: Pick<T, 'box' | 'predictedIoU'>, nmsIou: number): T[] | undefined {
  const overlapping = kept.filter((k) => boxIoU(k.box, candidate.box) > nmsIou);
  return overlapping.some((k) => k.predictedIoU >= candidate.predictedIoU) ? undefined : overlapping;
}

function definedOnly(options: EverythingOptions): Partial<EverythingSettings> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(EVERYTHING_SETTINGS.grid) as (keyof EverythingSettings)[]) {
    if (options[key] !== undefined) out[key] = options[key];
  }
  return out as Partial<EverythingSettings>;
}
