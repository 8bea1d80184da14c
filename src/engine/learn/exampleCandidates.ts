/**
 * Candidates for the person's classes that no detector names, prompted by their own examples: find
 * similar (text/similar.ts) run for a learned class. A class the detectors know gets candidates from
 * their boxes; one they do not (a user's products, parts, cells) gets none there, and segment
 * everything's point grid is too coarse for small crowded objects. So each such class's look in SAM's
 * features (LearnedClasses.samPrototype) is compared with every cell of the photo, and the cells most
 * like it, each the best of its neighbourhood, become point prompts. SAM's masks for them are
 * candidates named by that class, under their own calibration (proposeLearned.ts bestGuess).
 *
 * Measured in the learn eval (`--example-seeds`, docs/RESULTS.md, h37-unknown) and not wired into the
 * product: it finds the objects, but ten photos' looks do not tell them from their parts, groups and
 * look-alikes, and the proposals it adds cost the detector-named classes more than they gain.
 */
import type { SegmentationEngine } from '../engine';
import type { PointPrompt } from '../types';
import { samCells, samDescriptor } from './descriptors';
import { cellCentre, geometry, normalisedCells, similarityMap, similarityPeaks } from '../text/similar';
import type { Candidate, ClassLook } from './proposeLearned';

/** The calibration source of a candidate named by the look that prompted it. */
export const EXAMPLE_SOURCE = 'example';

/** A point prompt asked for a class by its look; `similarity`: the look's cosine similarity with the cell there. */
export interface ExampleSeed {
  readonly point: PointPrompt;
  readonly classId: string;
  readonly look: readonly number[];
  readonly similarity: number;
}

/**
 * Seeds asked per class and photo at most: bounds the decoder runs (one per seed), while leaving room
 * for a photo holding a dozen of the class.
 */
export const SEEDS_PER_CLASS = 12;
/**
 * A cell is a seed only from this cosine similarity to the class's look: below it a peak is background
 * that is merely the least unlike. A single cell is noisier than a mask's mean, so the bar sits well
 * under find-similar's for a whole mask (0.7); the learned classes judge what the seeds find.
 */
export const SEED_SIMILARITY = 0.3;

export interface ExampleSeedOptions {
  readonly perClass?: number;
  readonly minSimilarity?: number;
}

/**
 * The point prompts the classes' looks give on one embedded photo: for each prototype (unit-length,
 * SAM's 256 channels), its similarity map's peaks from `minSimilarity`, best first, `perClass` at
 * most; a cell asked for one class is not asked again for another.
 */
export function exampleSeeds(
  embedding: { readonly data: Float32Array; readonly dims: readonly number[] },
  width: number,
  height: number,
  looks: readonly ClassLook[],
  options: ExampleSeedOptions = {},
): ExampleSeed[] {
  const [, channels] = embedding.dims;
  const g = geometry(width, height);
  const cells = normalisedCells(embedding.data, channels, g);
  const nowhere = new Float32Array(64 * 64);
  const asked = new Set<number>();
  const seeds: ExampleSeed[] = [];
  for (const { classId, look } of looks) {
    if (look.length !== channels) throw new Error(`a class's look has ${look.length} channels, the photo's embedding ${channels}`);
    const map = similarityMap(cells, channels, Float32Array.from(look), g);
    const peaks = similarityPeaks(map, g, options.minSimilarity ?? SEED_SIMILARITY, nowhere).filter((cell) => !asked.has(cell)).slice(0, options.perClass ?? SEEDS_PER_CLASS);
    for (const cell of peaks) {
      asked.add(cell);
      seeds.push({ point: { ...cellCentre(cell, g), positive: true }, classId, look, similarity: map[cell] });
    }
  }
  return seeds;
}

/**
 * SAM's masks for each seed (all three of its answers: a part, the object, a group; the learned
 * classes choose), as candidates named by the class whose look asked.
 */
export async function seedCandidates(engine: SegmentationEngine, imageKey: string, seeds: readonly ExampleSeed[]): Promise<Candidate[]> {
  const entry = engine.getEmbedding(imageKey);
  if (!entry) throw new Error(`no embedding for image "${imageKey}": embed the image first`);
  const cells = samCells(entry.embedding, entry.width, entry.height);
  const out: Candidate[] = [];
  for (const seed of seeds) {
    const { candidates } = await engine.predict(imageKey, { points: [seed.point] }, { multimask: true, mirrorAverage: false });
    for (const c of candidates) if (c.area > 0) out.push({ mask: c.mask, ...namedBy(seed, samDescriptor(cells, c.mask)) });
  }
  return out;
}

/**
 * What a seed's class says of a mask it prompted (`maskLook`: the mask's `sam` descriptor): how like
 * the class's look the whole mask is, not only the seed's cell. A seed's three masks share the cell, and
 * the part or the group around a small object reads less like it than the object does (find-similar
 * chooses among them the same way).
 */
export function namedBy(seed: ExampleSeed, maskLook: readonly number[]): Pick<Candidate, 'label' | 'detectorScore' | 'wordSource'> {
  const similarity = maskLook.reduce((sum, v, i) => sum + v * seed.look[i], 0);
  return { label: seed.classId, detectorScore: Math.max(0, similarity), wordSource: EXAMPLE_SOURCE };
}

/** Both steps on an embedded photo: the candidates the classes' looks prompt. */
export async function exampleCandidates(engine: SegmentationEngine, imageKey: string, looks: readonly ClassLook[], options: ExampleSeedOptions = {}): Promise<Candidate[]> {
  if (looks.length === 0) return [];
  const entry = engine.getEmbedding(imageKey);
  if (!entry) throw new Error(`no embedding for image "${imageKey}": embed the image first`);
  return seedCandidates(engine, imageKey, exampleSeeds(entry.embedding, entry.width, entry.height, looks, options));
}
