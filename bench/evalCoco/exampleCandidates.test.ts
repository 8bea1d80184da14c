import { describe, expect, it } from 'vitest';
import type { RegionDescriptor } from '../../src/engine/learn/descriptors';
import { LearnedClasses } from '../../src/engine/learn/learnedClasses';
import { classLooks, exampleSeeds, SEED_SIMILARITY } from './exampleCandidates';

const CHANNELS = 8;
/** A 64×64 embedding (the photo 1024×1024, so a cell is 16 px): every cell `background`, the listed cells `object`. */
function embedding(objectCells: readonly number[], object: readonly number[], background: readonly number[]) {
  const data = new Float32Array(CHANNELS * 64 * 64);
  const objects = new Set(objectCells);
  for (let cell = 0; cell < 64 * 64; cell++) {
    const v = objects.has(cell) ? object : background;
    for (let c = 0; c < CHANNELS; c++) data[c * 64 * 64 + cell] = v[c];
  }
  return { data, dims: [1, CHANNELS, 64, 64] };
}

const APPLE = [1, 0, 0, 0, 0, 0, 0, 0];
const TABLE = [0, 1, 0, 0, 0, 0, 0, 0];
const cellOf = (row: number, col: number) => row * 64 + col;

describe('exampleSeeds', () => {
  it("asks at the centre of each cell that looks like the class, not at the background, best first and at most perClass", () => {
    const apples = [cellOf(10, 10), cellOf(30, 40), cellOf(50, 20)];
    const seeds = exampleSeeds(embedding(apples, APPLE, TABLE), 1024, 1024, [{ classId: 'apple', look: APPLE }]);
    expect(seeds.map((s) => [s.point.x, s.point.y]).sort((a, b) => a[1] - b[1])).toEqual([
      [10 * 16 + 8, 10 * 16 + 8],
      [40 * 16 + 8, 30 * 16 + 8],
      [20 * 16 + 8, 50 * 16 + 8],
    ]);
    expect(seeds.every((s) => s.point.positive && s.classId === 'apple' && s.similarity > SEED_SIMILARITY)).toBe(true);
    expect(exampleSeeds(embedding(apples, APPLE, TABLE), 1024, 1024, [{ classId: 'apple', look: APPLE }], { perClass: 2 })).toHaveLength(2);
  });

  it('asks nothing for a look the photo holds nothing like', () => {
    const cup = [0, 0, 1, 0, 0, 0, 0, 0];
    expect(exampleSeeds(embedding([cellOf(10, 10)], APPLE, TABLE), 1024, 1024, [{ classId: 'cup', look: cup }], { minSimilarity: SEED_SIMILARITY })).toEqual([]);
  });

  it('asks a cell once when two classes look alike there', () => {
    const seeds = exampleSeeds(embedding([cellOf(5, 5)], APPLE, TABLE), 1024, 1024, [{ classId: 'apple', look: APPLE }, { classId: 'pear', look: APPLE }]);
    expect(seeds.map((s) => s.classId)).toEqual(['apple']);
  });

  it('refuses a look of another length than the embedding', () => {
    expect(() => exampleSeeds(embedding([], APPLE, TABLE), 1024, 1024, [{ classId: 'apple', look: [1, 0] }])).toThrow(/channels/);
  });
});

describe('classLooks', () => {
  const withSam = (sam: number[], appearance: number[]): RegionDescriptor => ({ sam, detectors: [], appearance, backbone: [] });
  const nobodyKnows = () => false;

  it("is the unit-length mean of the class's own examples' sam descriptors, not of other classes' or background", () => {
    const model = new LearnedClasses({ kinds: ['appearance', 'sam'] });
    model.learnAll([
      { descriptor: withSam([1, 0, 0], [1, 0]), classId: 'cup' },
      { descriptor: withSam([0, 1, 0], [1, 0]), classId: 'cup' },
      { descriptor: withSam([0, 0, 1], [0, 1]), classId: 'bottle' },
      { descriptor: withSam([0, 0, 1], [0, 0]), classId: null },
    ]);
    const looks = new Map(classLooks(model, nobodyKnows, withSam([0, 0, 0], [0, 0])).map((l) => [l.classId, l.look]));
    const cup = looks.get('cup')!;
    expect(cup[0]).toBeCloseTo(Math.SQRT1_2, 3);
    expect(cup[1]).toBeCloseTo(Math.SQRT1_2, 3);
    expect(cup[2]).toBeCloseTo(0, 6);
    expect(looks.get('bottle')).toEqual([0, 0, 1]);
  });

  it('leaves out the classes a detector names, and every class of a model that does not read sam', () => {
    const model = new LearnedClasses({ kinds: ['appearance', 'sam'] });
    model.learnAll([
      { descriptor: withSam([1, 0, 0], [1, 0]), classId: 'cup' },
      { descriptor: withSam([0, 0, 1], [0, 1]), classId: 'bottle' },
    ]);
    expect(classLooks(model, (name) => name === 'bottle', withSam([0, 0, 0], [0, 0])).map((l) => l.classId)).toEqual(['cup']);
    const blind = new LearnedClasses({ kinds: ['appearance'] });
    blind.learn({ descriptor: withSam([1, 0, 0], [1, 0]), classId: 'cup' });
    expect(classLooks(blind, nobodyKnows, withSam([1, 0, 0], [1, 0]))).toEqual([]);
  });
});
