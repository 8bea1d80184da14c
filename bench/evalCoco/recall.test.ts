import { describe, expect, it } from 'vitest';
import { toRegion } from './metrics';
import { addImageRecall, areaRange, emptyRecallCounts, recall } from './recall';

const W = 200;
const H = 200;
function rect(x0: number, y0: number, x1: number, y1: number) {
  const data = new Uint8Array(W * H);
  for (let y = y0; y < y1; y++) data.fill(1, y * W + x0, y * W + x1);
  return toRegion({ width: W, height: H, data });
}

describe('class-agnostic recall', () => {
  it("uses COCO's area ranges", () => {
    expect(areaRange(1023)).toBe('small');
    expect(areaRange(1024)).toBe('medium');
    expect(areaRange(96 * 96)).toBe('large');
  });

  it('counts an object found when a proposal overlaps it at IoU ≥ 0.5, one proposal per object', () => {
    const small = { region: rect(0, 0, 20, 20), crowd: false, area: 400 };
    const large = { region: rect(50, 50, 170, 170), crowd: false, area: 120 * 120 };
    const counts = emptyRecallCounts();
    // One proposal exactly on the large object, one covering both (IoU with the small one ≈ 0).
    addImageRecall(counts, [small, large], [
      { region: rect(50, 50, 170, 170), score: 0.9 },
      { region: rect(0, 0, 170, 170), score: 0.8 },
    ]);
    expect(counts.all).toEqual({ matched: 1, instances: 2 });
    expect(recall(counts.large)).toBe(1);
    expect(recall(counts.small)).toBe(0);
    expect(recall(counts.medium)).toBeUndefined();
  });

  it('keeps only the best 100 proposals of an image', () => {
    const gt = { region: rect(0, 0, 10, 10), crowd: false, area: 100 };
    const decoys = Array.from({ length: 100 }, () => ({ region: rect(100, 100, 150, 150), score: 0.9 }));
    const counts = emptyRecallCounts();
    addImageRecall(counts, [gt], [...decoys, { region: rect(0, 0, 10, 10), score: 0.1 }]);
    expect(counts.all.matched).toBe(0);
  });
});
