/**
 * The example path, eval only: candidates for the person's classes that no detector names, prompted by
 * their own examples (find similar, text/similar.ts, run for a learned class). A class the detectors
 * know gets candidates from their boxes; one they do not (a user's products, parts, cells) gets none
 * there, and segment everything's point grid is too coarse for small crowded objects. So each such
 * class's look in SAM's features (classLooks) is compared with every cell of the photo, and the cells
 * most like it, each the best of its neighbourhood, become point prompts. SAM's masks for them are
 * candidates the learned classes name, as they name segment everything's.
 *
 * Measured in the learn eval (`--example-seeds`, docs/RESULTS.md, h37-unknown) and not in the product:
 * it finds the objects, but ten photos' looks do not tell them from their parts, groups and
 * look-alikes, and the proposals it adds cost the detector-named classes more than they gain.
 */
import type { SegmentationEngine } from '../../src/engine/engine';
import type { PointPrompt } from '../../src/engine/types';
import type { RegionDescriptor } from '../../src/engine/learn/descriptors';
import type { LearnedClasses } from '../../src/engine/learn/learnedClasses';
import { unpackExamples } from '../../src/engine/learn/packedExamples';
import type { Candidate } from '../../src/engine/learn/proposeLearned';
import { featureBlocks } from '../../src/engine/learn/prototypeHead';
import { cellCentre, geometry, normalisedCells, similarityMap, similarityPeaks } from '../../src/engine/text/similar';

/** A learned class's look in SAM's features: the unit-length mean of its positive examples' `sam` descriptors, as find-similar's prototype is. */
export interface ClassLook {
  readonly classId: string;
  readonly look: readonly number[];
}

/**
 * The looks of the model's classes that `detectorKnows` does not name, read from the examples the
 * model holds now (its saved form: the examples as it keeps them). `layout`: any descriptor of the
 * session, for where the `sam` columns sit among the model's features. None for a class without a
 * held example or a model that does not read `sam`.
 */
export function classLooks(model: LearnedClasses, detectorKnows: (name: string) => boolean, layout: RegionDescriptor): ClassLook[] {
  const state = model.toJSON();
  const kind = state.kinds.indexOf('sam');
  if (kind < 0 || !state.packedExamples) return [];
  const { start, length } = featureBlocks(layout, state.kinds)[kind];
  const examples = unpackExamples(state.packedExamples);
  return state.classes.flatMap((classId, c) => {
    if (c === 0 || detectorKnows(classId)) return [];
    const sum = new Array<number>(length).fill(0);
    let count = 0;
    for (const e of examples) {
      if (e.c !== c) continue;
      count++;
      for (let i = 0; i < length; i++) sum[i] += e.x[start + i];
    }
    const norm = Math.hypot(...sum);
    return count && norm > 0 ? [{ classId, look: sum.map((v) => v / norm) }] : [];
  });
}

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

/** SAM's masks for each seed: all three of its answers (a part, the object, a group); the learned classes choose. */
export async function seedCandidates(engine: SegmentationEngine, imageKey: string, seeds: readonly ExampleSeed[]): Promise<Candidate[]> {
  const out: Candidate[] = [];
  for (const seed of seeds) {
    const { candidates } = await engine.predict(imageKey, { points: [seed.point] }, { multimask: true, mirrorAverage: false });
    for (const c of candidates) if (c.area > 0) out.push({ mask: c.mask });
  }
  return out;
}

/** Both steps on an embedded photo: the candidates the classes' looks prompt. */
export async function exampleCandidates(engine: SegmentationEngine, imageKey: string, looks: readonly ClassLook[], options: ExampleSeedOptions = {}): Promise<Candidate[]> {
  if (looks.length === 0) return [];
  const entry = engine.getEmbedding(imageKey);
  if (!entry) throw new Error(`no embedding for image "${imageKey}": embed the image first`);
  return seedCandidates(engine, imageKey, exampleSeeds(entry.embedding, entry.width, entry.height, looks, options));
}
