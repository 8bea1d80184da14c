import { describe, expect, it } from 'vitest';
import type { Detection } from '../text/detector';
import { boxMask } from './descriptors';
import { framedAnswer, framedCandidates, unframedBoxes } from './framedCandidates';

const W = 400;
const H = 300;
const raccoon = { x0: 100, y0: 80, x1: 300, y1: 260 };
const head = { x0: 110, y0: 90, x1: 170, y1: 150 };
const detection = (label: string, score: number, box = raccoon): Detection => ({ classIndex: -1, label, score, box });

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

describe('framedCandidates', () => {
  it('asks SAM once per unframed object and keeps the framing answer with the detector class', async () => {
    const asked: unknown[] = [];
    // A decoder that answers every box with the head first, the whole second: what SAM does on an animal no detector names.
    const engine = {
      predict: async (_key: string, prompt: unknown) => {
        asked.push(prompt);
        return { candidates: [{ mask: boxMask(head, W, H) }, { mask: boxMask(raccoon, W, H) }], timings: { decoderMs: 0, postprocessMs: 0 } };
      },
    } as unknown as Parameters<typeof framedCandidates>[0];
    const found = await framedCandidates(engine, 'photo', [detection('bear', 0.6), detection('dog', 0.5, { ...raccoon, x0: 105 })], [head], { minScore: 0.1 });
    expect(asked).toHaveLength(1);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ label: 'bear', detectorScore: 0.6 });
    expect(found[0].mask.data.reduce((s, v) => s + v, 0)).toBe(200 * 180);
  });
});
