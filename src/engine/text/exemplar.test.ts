import { describe, expect, it } from 'vitest';
import type { Concept } from './concepts';
import type { Detection } from './detector';
import { classesOfExamples, exampleBox } from './exemplar';

const detection = (label: Concept, score: number, x0: number, y0: number, x1: number, y1: number): Detection => ({
  classIndex: 0,
  label,
  score,
  box: { x0, y0, x1, y1 },
});

describe('exampleBox', () => {
  it('is the rectangle around the set pixels, far edges exclusive as detector boxes are', () => {
    const data = new Uint8Array(6 * 4);
    data[1 * 6 + 2] = 1;
    data[2 * 6 + 4] = 1;
    expect(exampleBox({ width: 6, height: 4, data })).toEqual({ x0: 2, y0: 1, x1: 5, y1: 3 });
    expect(exampleBox({ width: 6, height: 4, data: new Uint8Array(24) })).toBeUndefined();
  });
});

describe('classesOfExamples', () => {
  const example = { x0: 10, y0: 10, x1: 50, y1: 90 };

  it('names an example after the best-scored detection that coincides with it (box IoU ≥ 0.5)', () => {
    const detections = [
      detection('dog', 0.9, 200, 200, 260, 260), // elsewhere: says nothing about the example
      detection('teddy bear', 0.35, 12, 12, 50, 88),
      detection('person', 0.8, 8, 10, 52, 92),
      detection('backpack', 0.95, 20, 30, 40, 50), // on the example but a part of it (IoU < 0.5)
    ];
    expect(classesOfExamples(detections, [example])).toEqual(['person']);
  });

  it('names an example at any score (the person has said it is an object), and leaves unnamed one nothing coincides with', () => {
    expect(classesOfExamples([detection('person', 0.04, 10, 10, 50, 90)], [example])).toEqual(['person']);
    expect(classesOfExamples([detection('person', 0.9, 10, 10, 30, 50)], [example])).toEqual([]);
  });

  it('gives the union of several examples’ classes, once each, in the examples’ order', () => {
    const second = { x0: 100, y0: 10, x1: 140, y1: 90 };
    const third = { x0: 200, y0: 10, x1: 240, y1: 90 };
    const detections = [detection('cup', 0.7, 100, 10, 140, 90), detection('person', 0.8, 10, 10, 50, 90), detection('cup', 0.6, 200, 12, 240, 90)];
    expect(classesOfExamples(detections, [second, example, third])).toEqual(['cup', 'person']);
  });
});
