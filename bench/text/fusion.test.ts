import { describe, expect, it } from 'vitest';
import type { Detection } from '../../src/engine/text/detector';
import { weightedBoxFusion } from './fusion';

const whole = { x0: 0, y0: 0, x1: 1000, y1: 1000 };
const cat = (score: number, x0: number, y0: number, x1: number, y1: number, detector = 'a'): Detection => ({
  classIndex: 15,
  label: 'cat',
  score,
  box: { x0, y0, x1, y1 },
  detector,
});

describe('weighted box fusion', () => {
  it('averages the corners of overlapping boxes by score and scores agreement above a lone find', () => {
    const fused = weightedBoxFusion([
      { detections: [cat(0.6, 100, 100, 200, 200), cat(0.6, 600, 600, 700, 700)], view: whole },
      { detections: [cat(0.2, 110, 110, 210, 210)], view: whole },
    ]);
    expect(fused).toHaveLength(2);
    const [both, lone] = fused;
    expect(both.box.x0).toBeCloseTo((100 * 0.6 + 110 * 0.2) / 0.8);
    expect(both.box.y1).toBeCloseTo((200 * 0.6 + 210 * 0.2) / 0.8);
    expect(both.score).toBeCloseTo(0.4); // (0.6 + 0.2) over the two passes that saw it
    expect(lone.score).toBeCloseTo(0.3); // one of two passes found it
  });

  it('counts only the passes whose view holds the box, and never fuses different concepts', () => {
    const tile = { x0: 0, y0: 0, x1: 500, y1: 500 };
    const dog: Detection = { ...cat(0.5, 600, 600, 700, 700), label: 'dog', classIndex: 16 };
    const fused = weightedBoxFusion([
      { detections: [cat(0.5, 600, 600, 700, 700), dog], view: whole },
      { detections: [], view: tile },
    ]);
    // The tile could not see (650, 650): the cat keeps its whole score, and the dog stays a dog.
    expect(fused.map((d) => [d.label, d.score])).toEqual([
      ['cat', 0.5],
      ['dog', 0.5],
    ]);
  });

  it('keeps the best member’s identity (detector) on the fused box', () => {
    const [fused] = weightedBoxFusion([
      { detections: [cat(0.3, 100, 100, 200, 200, 'a')], view: whole },
      { detections: [cat(0.7, 100, 100, 200, 200, 'b')], view: whole },
    ]);
    expect(fused.detector).toBe('b');
    expect(fused.score).toBeCloseTo(0.5);
  });
});
