import { describe, expect, it } from 'vitest';
import type { ConceptDetector, Detection } from './detector';
import { detectorsFor, mergeDetections } from './pool';

const box = (x0: number, y0: number, x1: number, y1: number) => ({ x0, y0, x1, y1 });
const detection = (detector: string, label: 'cat' | 'dog', score: number, b = box(0, 0, 100, 100)): Detection => ({
  classIndex: label === 'cat' ? 15 : 16,
  label,
  score,
  box: b,
  detector,
});

describe('pooling detectors', () => {
  it('asks only the detectors whose vocabulary covers a wanted concept', () => {
    const coco = { name: 'coco', vocabulary: ['cat', 'dog'] } as unknown as ConceptDetector;
    const shoes = { name: 'shoes', vocabulary: ['footwear'] } as unknown as ConceptDetector;
    expect(detectorsFor([coco, shoes], new Set(['cat'])).map((d) => d.name)).toEqual(['coco']);
    expect(detectorsFor([coco, shoes], new Set(['footwear', 'dog'])).map((d) => d.name)).toEqual(['coco', 'shoes']);
  });

  it('keeps one of two detectors’ boxes on the same object, the better calibrated one', () => {
    const calibration = { a: { a: 1, b: 0 }, b: { a: 1, b: 2 } }; // b's scores are worth more
    const merged = mergeDetections([[detection('a', 'cat', 0.6)], [detection('b', 'cat', 0.4, box(2, 2, 100, 100))]], 0.05, { calibration });
    expect(merged).toHaveLength(1);
    expect(merged[0].detector).toBe('b');
    expect(merged[0].rawScore).toBe(0.4);
    expect(merged[0].score).toBeGreaterThan(0.8);
  });

  it('keeps boxes of different concepts, of different places, and applies the threshold after calibration', () => {
    const calibration = { a: { a: 1, b: -3 } };
    const merged = mergeDetections(
      [[detection('a', 'cat', 0.9), detection('a', 'cat', 0.3, box(200, 200, 300, 300))], [detection('b', 'dog', 0.5)]],
      0.2,
      { calibration },
    );
    // a's 0.3 calibrates to about 0.02: below the threshold; its 0.9 to about 0.31.
    expect(merged.map((d) => [d.detector, d.label])).toEqual([
      ['b', 'dog'],
      ['a', 'cat'],
    ]);
  });
});
