import { describe, expect, it } from 'vitest';
import type { Detection } from '../../src/engine/text/detector';
import { boxMask } from '../../src/engine/learn/descriptors';
import { framedAnswer, unframedBoxes } from './framedCandidates';

const W = 400;
const H = 300;
const raccoon = { x0: 100, y0: 80, x1: 300, y1: 260 };
const head = { x0: 110, y0: 90, x1: 170, y1: 150 };
const detection = (label: string, score: number, box = raccoon): Detection => ({ classIndex: -1, label: label as Detection['label'], score, box });

describe('unframedBoxes', () => {
  it('asks the strongest box of each object that no candidate fits, not weaker ones', () => {
    const boxes = unframedBoxes([detection('cat', 0.3), detection('bear', 0.6), detection('desk', 0.05, { x0: 0, y0: 0, x1: 50, y1: 50 })], [head], 0.1);
    expect(boxes.map((d) => d.label)).toEqual(['bear']);
  });
  it('asks nothing where a candidate already fits the box', () => {
    expect(unframedBoxes([detection('bear', 0.6)], [{ ...raccoon, x1: 290 }], 0.1)).toEqual([]);
  });
});

describe('framedAnswer', () => {
  it("takes the answer whose extent the box frames, not SAM's preferred part", () => {
    const answers = [{ mask: boxMask(head, W, H) }, { mask: boxMask({ ...raccoon, y1: 250 }, W, H) }, { mask: boxMask({ x0: 0, y0: 0, x1: W, y1: H }, W, H) }];
    expect(framedAnswer(answers, raccoon)).toBe(answers[1]);
  });
  it('gives nothing when no answer fills the box', () => {
    expect(framedAnswer([{ mask: boxMask(head, W, H) }], raccoon)).toBeUndefined();
  });
});
