import { describe, expect, it } from 'vitest';
import { clicksToReach, iou, summarize } from './metrics';

describe('iou', () => {
  it('excludes ignore pixels from both intersection and union', () => {
    const truth = { width: 4, height: 1, labels: Int8Array.from([1, 1, -1, 0]) };
    expect(iou(truth, Uint8Array.from([1, 0, 1, 0]))).toBeCloseTo(1 / 2);
    expect(iou(truth, Uint8Array.from([1, 1, 1, 0]))).toBe(1);
    expect(iou(truth, Uint8Array.from([1, 1, 0, 1]))).toBeCloseTo(2 / 3);
  });
});

describe('clicksToReach', () => {
  it('is the first click at or above the threshold, or the cap with reached=false', () => {
    expect(clicksToReach([0.5, 0.9, 0.95], 0.9, 20)).toEqual({ noc: 2, reached: true });
    expect(clicksToReach([0.5, 0.89], 0.9, 20)).toEqual({ noc: 20, reached: false });
    const late = Array.from({ length: 20 }, (_, k) => (k === 19 ? 0.9 : 0.1));
    expect(clicksToReach(late, 0.9, 20)).toEqual({ noc: 20, reached: true });
  });
});

describe('summarize', () => {
  it('averages NoC, counts failures and reports mIoU after exactly k clicks', () => {
    const a = { name: 'a', ious: [0.86, 0.91, 0.92, 0.93, 0.94], boxIou: 0.8 };
    const b = { name: 'b', ious: [0.2, 0.5, 0.7, 0.8, 0.84], boxIou: 0.6 };
    const s = summarize([a, b], 5);
    expect(s.noc85).toBe((1 + 5) / 2);
    expect(s.noc90).toBe((2 + 5) / 2);
    expect(s.nof85).toBe(1);
    expect(s.nof90).toBe(1);
    expect(s.miou[1]).toBeCloseTo(0.53);
    expect(s.miou[3]).toBeCloseTo(0.81);
    expect(s.miou[5]).toBeCloseTo(0.89);
    expect(s.boxMiou).toBeCloseTo(0.7);
  });
});
