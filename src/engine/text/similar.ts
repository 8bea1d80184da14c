/**
 * "Find similar": from one accepted object, find the other instances of the same kind of thing
 * using SAM's image features alone — no vocabulary, so it works for things no detector knows.
 *
 * 1. The object's prototype: the mean of the L2-normalised 256-d SAM embedding vectors of the
 *    64×64 grid cells the mask covers.
 * 2. A cosine-similarity map of every cell of the image against the prototype.
 * 3. Local maxima above a threshold, outside the source object, become positive point prompts.
 * 4. For each point SAM proposes masks; the candidate kept is the one whose own prototype is most
 *    like the source's (cosine × predicted IoU × a mild preference for similar size), so a click on
 *    a sheep's head still yields the whole sheep when that is what the source was.
 * 5. Masks that look unlike the prototype, overlap the source, or duplicate a better one are dropped.
 */
import type { SegmentationEngine } from '../engine';
import { MODEL_SIZE } from '../frame';
import { maskIoU } from '../polygons';
import type { BinaryMask } from '../types';
import { suppressOverlaps } from './detector';

/** SAM's embedding grid: GRID × GRID cells of CELL pixels over the encoder's input. */
export const GRID = 64;
export const CELL = MODEL_SIZE / GRID;

/**
 * How candidates are found and judged. 'peaks': find-similar before issue 26 (seeds at the similarity
 * map's peaks, one decoder run each, kept on the prototype's cosine similarity). 'verified': the same
 * candidates, then kept only when each is one whole instance like the example (`verify`).
 */
export type SimilarRule = 'peaks' | 'verified';
export const SIMILAR_RULES: readonly SimilarRule[] = ['verified', 'peaks'];
export const DEFAULT_SIMILAR_RULE: SimilarRule = 'peaks';

/** The 'verified' rule's bounds (chosen on coco-tiny's exemplar answers, docs/RESULTS.md). */
export const VERIFIED = {
  /** An answer's area as a multiple of the example's. */
  minAreaRatio: 0.1,
  maxAreaRatio: 4,
  /** An answer's similarity to the example's prototype, as a share of the example's own. */
  minSimilarityShare: 0,
} as const;

export interface SimilarOptions {
  readonly rule?: SimilarRule;
  /** The example's class: every instance found carries it. */
  readonly label?: string;
  /**
   * Seeds need a cosine similarity of at least this fraction of the source's own mean similarity to
   * its prototype (how alike the source's cells are to each other). Default 0.5.
   */
  readonly seedSimilarity?: number;
  /**
   * A found mask's own prototype must have at least this cosine similarity with the source's.
   * Default 0.7 (seen on COCO photos: other donuts 0.75–0.83 against 0.52–0.65 for the table and a cup).
   */
  readonly maskSimilarity?: number;
  /** Candidates larger than this multiple of the source's area are groups, not instances. Default 4. */
  readonly maxAreaRatio?: number;
  /** At most this many seeds are tried (decoder runs). Default 24. */
  readonly maxSeeds?: number;
  /** Two found masks overlapping more than this keep only the better one. Default 0.5. */
  readonly nmsIou?: number;
}

export interface SimilarInstance {
  readonly mask: BinaryMask;
  /** Cosine similarity of the mask's prototype (centred mean embedding) to the source's, in [-1, 1]. */
  readonly similarity: number;
  /** SAM's predicted IoU of the mask. */
  readonly maskScore: number;
  /** similarity (clamped to [0, 1]) × maskScore, for ranking; best first. */
  readonly score: number;
  /** How sure the engine is that this is another instance of the example's kind, in [0, 1]. */
  readonly confidence: number;
  /** Where the proposal came from: an example the person gave. */
  readonly source: 'exemplar';
  /** The example's class, when the caller named it. */
  readonly label?: string;
  /** The seed point (image pixels). */
  readonly seed: { x: number; y: number };
  readonly area: number;
}

export interface Geometry {
  readonly width: number;
  readonly height: number;
  /** Cells (columns, rows) that hold image rather than padding. */
  readonly cols: number;
  readonly rows: number;
  readonly scale: number;
}

export function geometry(width: number, height: number): Geometry {
  const scale = MODEL_SIZE / Math.max(width, height);
  return {
    width,
    height,
    scale,
    cols: Math.min(GRID, Math.ceil((width * scale) / CELL)),
    rows: Math.min(GRID, Math.ceil((height * scale) / CELL)),
  };
}

/** A grid cell's centre in image pixels (inside the image). */
export function cellCentre(cell: number, g: Geometry): { x: number; y: number } {
  return {
    x: Math.min(g.width - 1, ((cell % GRID) + 0.5) * CELL / g.scale),
    y: Math.min(g.height - 1, (Math.floor(cell / GRID) + 0.5) * CELL / g.scale),
  };
}

/** Fraction of each grid cell covered by the mask (cells over padding stay 0). */
export function maskCellCoverage(mask: BinaryMask, g: Geometry): Float32Array {
  const hits = new Float32Array(GRID * GRID);
  const totals = new Float32Array(GRID * GRID);
  for (let y = 0; y < mask.height; y++) {
    const row = Math.min(GRID - 1, Math.floor((y * g.scale) / CELL)) * GRID;
    for (let x = 0; x < mask.width; x++) {
      const cell = row + Math.min(GRID - 1, Math.floor((x * g.scale) / CELL));
      totals[cell]++;
      hits[cell] += mask.data[y * mask.width + x];
    }
  }
  for (let i = 0; i < hits.length; i++) hits[i] = totals[i] ? hits[i] / totals[i] : 0;
  return hits;
}

/**
 * Unit-length 256-d vectors per image cell, channel-last, from the [1, 256, 64, 64] embedding, after
 * subtracting the image's mean vector: SAM's embeddings share a large common component (measured on a
 * COCO flock of sheep: raw cosine 0.44 between sheep and background, 0.12 after centring, while
 * sheep-to-sheep similarity stays around 0.6), so centring is what makes the map discriminative.
 */
export function normalisedCells(embedding: Float32Array, channels: number, g: Geometry): Float32Array {
  const cells = GRID * GRID;
  const out = new Float32Array(cells * channels);
  const normalise = cellNormaliser(embedding, channels, g);
  for (let i = 0; i < cells; i++) normalise(i, out.subarray(i * channels, (i + 1) * channels));
  return out;
}

/**
 * normalisedCells one cell at a time, into `out`: for a caller that reads only the cells a region
 * covers (a region descriptor reads a few hundred of the 4,096, and the first one on a photo is what a
 * person's first decision there waits for). The image's mean is summed per channel in the same order
 * as a whole pass, so a cell comes out the same to the last bit either way.
 */
export function cellNormaliser(embedding: Float32Array, channels: number, g: Geometry): (cell: number, out: Float32Array) => void {
  const cells = GRID * GRID;
  const mean = new Float64Array(channels);
  const imageCells = g.rows * g.cols;
  for (let c = 0; c < channels; c++) {
    let sum = 0;
    for (let r = 0; r < g.rows; r++) for (let q = 0; q < g.cols; q++) sum += embedding[c * cells + r * GRID + q];
    mean[c] = sum / imageCells;
  }
  return (cell, out) => {
    for (let c = 0; c < channels; c++) out[c] = embedding[c * cells + cell] - mean[c];
    let norm = 0;
    for (let c = 0; c < channels; c++) norm += out[c] ** 2;
    norm = Math.sqrt(norm) || 1;
    for (let c = 0; c < channels; c++) out[c] /= norm;
  };
}

/** Mean of the cells covered by at least half (or the best-covered cells of a tiny mask), unit length. */
function prototypeOf(cells: Float32Array, channels: number, coverage: Float32Array): Float32Array | undefined {
  const max = coverage.reduce((m, v) => Math.max(m, v), 0);
  if (max === 0) return undefined;
  const threshold = Math.min(0.5, max);
  const proto = new Float32Array(channels);
  for (let i = 0; i < coverage.length; i++) {
    if (coverage[i] < threshold) continue;
    for (let c = 0; c < channels; c++) proto[c] += cells[i * channels + c];
  }
  const norm = Math.sqrt(proto.reduce((s, v) => s + v * v, 0)) || 1;
  return proto.map((v) => v / norm);
}

/** The examples' prototypes averaged, unit length (undefined when no example covers a cell). */
function meanPrototype(prototypes: readonly (Float32Array | undefined)[]): Float32Array | undefined {
  const present = prototypes.filter((p): p is Float32Array => !!p);
  if (present.length === 0) return undefined;
  const mean = new Float32Array(present[0].length);
  for (const p of present) for (let c = 0; c < mean.length; c++) mean[c] += p[c];
  const norm = Math.sqrt(mean.reduce((s, v) => s + v * v, 0)) || 1;
  return mean.map((v) => v / norm);
}

export function similarityMap(cells: Float32Array, channels: number, proto: Float32Array, g: Geometry): Float32Array {
  const map = new Float32Array(GRID * GRID).fill(-1);
  for (let r = 0; r < g.rows; r++) {
    for (let q = 0; q < g.cols; q++) {
      const i = r * GRID + q;
      let dot = 0;
      for (let c = 0; c < channels; c++) dot += cells[i * channels + c] * proto[c];
      map[i] = dot;
    }
  }
  return map;
}

function meanSimilarity(map: Float32Array, coverage: Float32Array): number {
  let sum = 0;
  let weight = 0;
  for (let i = 0; i < map.length; i++) {
    if (coverage[i] > 0 && map[i] > -1) {
      sum += coverage[i] * map[i];
      weight += coverage[i];
    }
  }
  return weight ? sum / weight : -1;
}

/** Cells that are the maximum of their 3×3 neighbourhood, above `threshold`, best first. */
export function similarityPeaks(map: Float32Array, g: Geometry, threshold: number, exclude: Float32Array): number[] {
  const peaks: number[] = [];
  for (let r = 0; r < g.rows; r++) {
    for (let q = 0; q < g.cols; q++) {
      const i = r * GRID + q;
      const v = map[i];
      if (v < threshold || exclude[i] > 0) continue;
      let isMax = true;
      for (let dr = -1; dr <= 1 && isMax; dr++) {
        for (let dq = -1; dq <= 1; dq++) {
          const rr = r + dr;
          const qq = q + dq;
          if ((dr || dq) && rr >= 0 && qq >= 0 && rr < g.rows && qq < g.cols && map[rr * GRID + qq] > v) {
            isMax = false;
            break;
          }
        }
      }
      if (isMax) peaks.push(i);
    }
  }
  return peaks.sort((a, b) => map[b] - map[a]);
}

/** Grows the mask's cell coverage by one cell, so seeds on the source's own border are skipped. */
function dilateCells(coverage: Float32Array): Float32Array {
  const out = new Float32Array(coverage.length);
  for (let r = 0; r < GRID; r++) {
    for (let q = 0; q < GRID; q++) {
      let v = 0;
      for (let dr = -1; dr <= 1; dr++) {
        for (let dq = -1; dq <= 1; dq++) {
          const rr = r + dr;
          const qq = q + dq;
          if (rr >= 0 && qq >= 0 && rr < GRID && qq < GRID) v = Math.max(v, coverage[rr * GRID + qq]);
        }
      }
      out[r * GRID + q] = v;
    }
  }
  return out;
}

/** The share of `inner`'s pixels that `outer` also covers (0 for an empty `inner`). */
export function overlapFraction(inner: BinaryMask, outer: BinaryMask): number {
  let inside = 0;
  let total = 0;
  for (let i = 0; i < inner.data.length; i++) {
    if (inner.data[i]) {
      total++;
      inside += outer.data[i];
    }
  }
  return total ? inside / total : 0;
}

export async function findSimilar(
  engine: SegmentationEngine,
  imageKey: string,
  source: BinaryMask | readonly BinaryMask[],
  options: SimilarOptions = {},
): Promise<SimilarInstance[]> {
  return (await findSimilarReport(engine, imageKey, source, options)).instances;
}

/** The pixels set in any of the masks (all of one size). */
export function unionOfMasks(masks: readonly BinaryMask[]): BinaryMask {
  const [first] = masks;
  const data = new Uint8Array(first.data.length);
  for (const mask of masks) for (let i = 0; i < data.length; i++) data[i] |= mask.data[i];
  return { width: first.width, height: first.height, data };
}

/**
 * The instances found and how many candidates were turned down because they do not look like the
 * source. Several examples (one or more masks of one class): their prototypes are averaged, seeds and
 * answers keep clear of all of them, and the size preference compares with their mean area.
 */
export async function findSimilarReport(
  engine: SegmentationEngine,
  imageKey: string,
  examples: BinaryMask | readonly BinaryMask[],
  options: SimilarOptions = {},
): Promise<{ instances: SimilarInstance[]; rejected: number }> {
  const sources: readonly BinaryMask[] = 'data' in examples ? [examples] : examples;
  if (sources.length === 0) throw new Error('find similar needs at least one example mask');
  const entry = engine.getEmbedding(imageKey);
  if (!entry) throw new Error(`no embedding for image "${imageKey}": embed the image first`);
  for (const source of sources) {
    if (entry.width !== source.width || entry.height !== source.height) {
      throw new Error(`mask is ${source.width}×${source.height} but the image is ${entry.width}×${entry.height}`);
    }
  }
  const source = sources.length === 1 ? sources[0] : unionOfMasks(sources);
  const [, channels, gh, gw] = entry.embedding.dims;
  if (gh !== GRID || gw !== GRID) throw new Error(`expected a ${GRID}×${GRID} embedding, got [${entry.embedding.dims}]`);
  const g = geometry(entry.width, entry.height);
  const cells = normalisedCells(entry.embedding.data, channels, g);
  const sourceCoverage = maskCellCoverage(source, g);
  const proto = sources.length === 1 ? prototypeOf(cells, channels, sourceCoverage) : meanPrototype(sources.map((s) => prototypeOf(cells, channels, maskCellCoverage(s, g))));
  if (!proto) return { instances: [], rejected: 0 };
  const map = similarityMap(cells, channels, proto, g);
  const selfSimilarity = meanSimilarity(map, sourceCoverage);
  if (!(selfSimilarity > 0)) return { instances: [], rejected: 0 };
  const seedThreshold = (options.seedSimilarity ?? 0.5) * selfSimilarity;
  const minSimilarity = options.maskSimilarity ?? 0.7;
  const sourceArea = sources.reduce((sum, s) => sum + s.data.reduce((n, v) => n + v, 0), 0) / sources.length;
  const maxArea = (options.maxAreaRatio ?? 4) * sourceArea;
  const seeds = similarityPeaks(map, g, seedThreshold, dilateCells(sourceCoverage)).slice(0, options.maxSeeds ?? 24);

  const found: SimilarInstance[] = [];
  let rejected = 0;
  for (const cell of seeds) {
    const seed = cellCentre(cell, g);
    // A seed inside an instance already found would only find it again.
    if (found.some((f) => f.mask.data[Math.floor(seed.y) * entry.width + Math.floor(seed.x)])) continue;
    const { candidates } = await engine.predict(imageKey, { points: [{ ...seed, positive: true }] }, { multimask: true, mirrorAverage: false });
    let best: SimilarInstance | undefined;
    for (const candidate of candidates) {
      if (candidate.area > maxArea) continue;
      const candidateProto = prototypeOf(cells, channels, maskCellCoverage(candidate.mask, g));
      const similarity = candidateProto ? candidateProto.reduce((sum, v, c) => sum + v * proto[c], 0) : -1;
      const sizeRatio = Math.min(candidate.area, sourceArea) / Math.max(candidate.area, sourceArea);
      const score = Math.max(0, similarity) * candidate.score * Math.sqrt(sizeRatio);
      if (!best || score > best.score) best = { mask: candidate.mask, similarity, maskScore: candidate.score, score, confidence: Math.min(1, score), source: 'exemplar', label: options.label, seed, area: candidate.area };
    }
    if (!best || best.similarity < minSimilarity) {
      // A region SAM outlined that does not look like the source (appearance, not a class name).
      rejected++;
      continue;
    }
    // The source itself, or a part of it, is not a new instance.
    if (overlapFraction(best.mask, source) > 0.3 || sources.some((s) => maskIoU(best!.mask, s) > 0.3)) continue;
    found.push(best);
  }
  found.sort((a, b) => b.score - a.score);
  const kept = suppressOverlaps(found, (a, b) => maskIoU(a.mask, b.mask), options.nmsIou ?? 0.5);
  if ((options.rule ?? DEFAULT_SIMILAR_RULE) === 'peaks') return { instances: kept, rejected };
  const verified = verify(kept, source, sourceArea, selfSimilarity);
  return { instances: verified, rejected: rejected + kept.length - verified.length };
}

/**
 * The 'verified' rule's checks on what the peaks found, so that what is proposed is one whole
 * instance like the example: about the example's size, not a part of it or of another answer, not a
 * group (a mask that holds two other answers is a merge of them).
 */
function verify(found: readonly SimilarInstance[], source: BinaryMask, sourceArea: number, selfSimilarity: number): SimilarInstance[] {
  const sized = found.filter((f) => {
    const ratio = f.area / sourceArea;
    return ratio >= VERIFIED.minAreaRatio && ratio <= VERIFIED.maxAreaRatio && f.similarity >= VERIFIED.minSimilarityShare * selfSimilarity;
  });
  const single = sized.filter((f) => overlapFraction(source, f.mask) < 0.5 && sized.filter((o) => o !== f && overlapFraction(o.mask, f.mask) > 0.8).length < 2);
  // Inside another answer: a part of that instance, not an instance of its own.
  return single
    .filter((f) => !single.some((o) => o !== f && o.area > f.area && overlapFraction(f.mask, o.mask) > 0.8))
    .map((f) => ({ ...f, confidence: Math.min(1, Math.max(0, f.similarity) * f.maskScore) }));
}
