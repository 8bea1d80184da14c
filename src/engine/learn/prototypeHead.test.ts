import { describe, expect, it } from 'vitest';
import type { RegionDescriptor } from './descriptors';
import { featureBlocks, PrototypeHead, type LabelledVector } from './prototypeHead';

/** Two blocks: a long one (8 numbers) and a short one (2). */
const BLOCKS = [
  { start: 0, length: 8 },
  { start: 8, length: 2 },
];

const vector = (long: readonly number[], short: readonly number[]) => [...long, ...short];

describe('featureBlocks', () => {
  it('places each kind where featureVector puts it', () => {
    const descriptor: RegionDescriptor = { sam: [1, 2, 3], detectors: [4], appearance: [5, 6], backbone: [], fit: [7, 8, 9] };
    expect(featureBlocks(descriptor, ['sam', 'appearance', 'fit'])).toEqual([
      { start: 0, length: 3 },
      { start: 3, length: 2 },
      { start: 5, length: 3 },
    ]);
  });
});

describe('PrototypeHead', () => {
  it('names the class whose examples a region lies among, never background, and its probabilities sum to one', () => {
    const zeros = new Array(8).fill(0);
    const examples: LabelledVector[] = [
      { x: vector(zeros, [1, 0]), c: 1 },
      { x: vector(zeros, [1.1, 0.1]), c: 1 },
      { x: vector(zeros, [0, 1]), c: 2 },
      { x: vector(zeros, [0.1, 1.1]), c: 2 },
      // Background lies nearest of all to the query: it is never a name.
      { x: vector(zeros, [0.95, 0.05]), c: 0 },
    ];
    const head = new PrototypeHead(BLOCKS);
    head.fit(examples, 3);
    for (const probabilities of [head.classProbabilities(vector(zeros, [0.9, 0])), head.nearestProbabilities(vector(zeros, [0.9, 0]))]) {
      expect(probabilities[0]).toBe(0);
      expect(probabilities[1]).toBeGreaterThan(probabilities[2]);
      expect(probabilities[1] + probabilities[2]).toBeCloseTo(1, 9);
    }
  });

  it('weighs a short descriptor kind as much as a long one', () => {
    // The classes differ only in a 2-number kind; a 64-number kind is noise of the same size per number.
    const blocks = [
      { start: 0, length: 64 },
      { start: 64, length: 2 },
    ];
    const noise = (i: number) => Array.from({ length: 64 }, (_, j) => Math.sin(i * 7.3 + j * 1.9 + i * j * 0.37));
    const examples: LabelledVector[] = [];
    for (let i = 0; i < 6; i++) examples.push({ x: [...noise(i), 1, -1], c: 1 }, { x: [...noise(i + 6), -1, 1], c: 2 });
    const head = new PrototypeHead(blocks);
    head.fit(examples, 3);
    let right = 0;
    for (let i = 20; i < 50; i++) {
      const p = head.classProbabilities([...noise(i), 1, -1]);
      if (p[1] > p[2]) right++;
    }
    expect(right).toBe(30);
  });

  it('names a class of two looks by its nearest examples, where the class mean points elsewhere', () => {
    const zeros = new Array(8).fill(0);
    // Class 1 comes in two opposite looks, so its mean is near nothing; class 2 sits in between.
    const examples: LabelledVector[] = [
      { x: vector(zeros, [1, 0.2]), c: 1 },
      { x: vector(zeros, [1, 0.25]), c: 1 },
      { x: vector(zeros, [-1, 0.2]), c: 1 },
      { x: vector(zeros, [-1, 0.25]), c: 1 },
      { x: vector(zeros, [0, 1]), c: 2 },
      { x: vector(zeros, [0.05, 1]), c: 2 },
    ];
    const head = new PrototypeHead(BLOCKS);
    head.fit(examples, 3);
    const query = vector(zeros, [1, 0.6]);
    const nearest = head.nearestProbabilities(query, 2);
    expect(nearest[1]).toBeGreaterThan(nearest[2]);
    const means = head.classProbabilities(query);
    expect(means[2]).toBeGreaterThan(means[1]);
  });

  it('names nothing before it holds an example of a class', () => {
    const head = new PrototypeHead(BLOCKS);
    head.fit([{ x: vector(new Array(8).fill(1), [0, 0]), c: 0 }], 1);
    expect([...head.nearestProbabilities(vector(new Array(8).fill(1), [0, 0]))]).toEqual([0]);
    expect([...head.classProbabilities(vector(new Array(8).fill(1), [0, 0]))]).toEqual([0]);
  });
});
