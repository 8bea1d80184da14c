import { describe, expect, it } from 'vitest';
import { averagePrecision, boxRegion, cocoIoU, countAt, matchImage, reliability, type GroundTruthInstance, type ImageMatch } from './metrics';

const W = 100;
const H = 100;
const box = (x0: number, y0: number, x1: number, y1: number) => boxRegion({ x0, y0, x1, y1 }, W, H);
const gt = (x0: number, y0: number, x1: number, y1: number, crowd = false): GroundTruthInstance => ({ region: box(x0, y0, x1, y1), crowd });

describe('COCO matching', () => {
  it('computes IoU, and intersection over detection area for crowd regions', () => {
    expect(cocoIoU(box(0, 0, 10, 10), gt(0, 0, 10, 20))).toBeCloseTo(0.5);
    expect(cocoIoU(box(0, 0, 10, 10), gt(0, 0, 50, 50, true))).toBe(1);
  });

  it('matches greedily by score: a duplicate is a false positive', () => {
    const m = matchImage([gt(0, 0, 10, 10)], [
      { region: box(0, 0, 10, 10), score: 0.9 },
      { region: box(0, 0, 10, 9), score: 0.8 },
    ]);
    expect(m.matched[0]).toEqual([true, false]);
    expect(countAt([m])).toEqual({ tp: 1, fp: 1, positives: 1 });
  });

  it('lets crowd regions absorb detections without counting them', () => {
    const m = matchImage([gt(0, 0, 10, 10), gt(50, 50, 100, 100, true)], [{ region: box(60, 60, 70, 70), score: 0.9 }]);
    expect(m.ignored[0]).toEqual([true]);
    expect(countAt([m])).toEqual({ tp: 0, fp: 0, positives: 1 });
  });

  it('gives AP 1 for perfect ranked detections, and less when a false positive outranks a true one', () => {
    const gts = [gt(0, 0, 10, 10), gt(20, 20, 30, 30)];
    const perfect = matchImage(gts, [
      { region: box(0, 0, 10, 10), score: 0.9 },
      { region: box(20, 20, 30, 30), score: 0.8 },
    ]);
    expect(averagePrecision([perfect])[0]).toBeCloseTo(1);
    const noisy = matchImage(gts, [
      { region: box(60, 60, 70, 70), score: 0.95 },
      { region: box(0, 0, 10, 10), score: 0.9 },
      { region: box(20, 20, 30, 30), score: 0.8 },
    ]);
    // Precision 1/2 up to recall 0.5, 2/3 to recall 1 → interpolated precision 2/3 everywhere.
    expect(averagePrecision([noisy])[0]).toBeCloseTo(2 / 3, 5);
    // Half the objects found → precision defined up to recall 0.5 only: 51 of 101 levels.
    const half = matchImage(gts, [{ region: box(0, 0, 10, 10), score: 0.9 }]);
    expect(averagePrecision([half])[0]).toBeCloseTo(51 / 101, 5);
  });

  it('leaves AP undefined for a category without ground truth', () => {
    expect(averagePrecision([matchImage([], [{ region: box(0, 0, 5, 5), score: 0.5 }])])[0]).toBeUndefined();
  });
});

describe('reliability (calibration of the confidence)', () => {
  const image = (scores: number[], right: boolean[], crowd: boolean[] = scores.map(() => false)): ImageMatch => ({
    scores,
    matched: [right],
    ignored: [crowd],
    positives: right.filter(Boolean).length,
  });

  it('bins answers by confidence and gives each bin its precision; a calibrated set has ECE 0', () => {
    // Bin [0.9, 1): 0.95 twice, both right → precision 1 vs confidence 0.95. Bin [0.5, 0.6): 0.5 twice, one right.
    const { bins, ece, answers } = reliability([image([0.95, 0.95, 0.5, 0.5], [true, true, true, false])]);
    expect(answers).toBe(4);
    expect(bins[9]).toMatchObject({ count: 2, meanConfidence: 0.95, precision: 1 });
    expect(bins[5]).toMatchObject({ count: 2, meanConfidence: 0.5, precision: 0.5 });
    expect(bins[0]).toEqual({ from: 0, to: 0.1, count: 0 });
    expect(ece).toBeCloseTo((2 / 4) * 0.05 + (2 / 4) * 0, 10);
  });

  it('measures over-confidence, ignores crowd matches, and puts a confidence of 1 in the top bin', () => {
    const { bins, ece, answers } = reliability([image([1, 0.9, 0.9], [false, false, true], [false, false, true])]);
    expect(answers).toBe(2);
    expect(bins[9]).toMatchObject({ count: 2, precision: 0 });
    expect(ece).toBeCloseTo(0.95, 10);
    expect(reliability([]).ece).toBeUndefined();
  });
});
