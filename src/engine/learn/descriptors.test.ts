import { describe, expect, it } from 'vitest';
import type { Detection } from '../text/detector';
import type { BinaryMask, RgbaImage } from '../types';
import {
  APPEARANCE_LENGTH,
  appearanceDescriptor,
  backboneDescriptor,
  boxMask,
  DEFAULT_DESCRIPTOR_KINDS,
  DETECTOR_CONCEPTS,
  detectorDescriptor,
  featureVector,
  fitDescriptor,
  maskBox,
  samCells,
  samDescriptor,
} from './descriptors';
import { geometry, normalisedCells } from '../text/similar';
import { LearnedClasses } from './learnedClasses';

const W = 64;
const H = 48;

/** Left half red, right half blue. */
function photo(): RgbaImage {
  const data = new Uint8Array(W * H * 4);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const k = (y * W + x) * 4;
      data.set(x < W / 2 ? [220, 20, 20, 255] : [20, 20, 220, 255], k);
    }
  }
  return { width: W, height: H, data };
}

describe('region descriptors', () => {
  it('maskBox is the tightest box, exclusive corners; boxMask fills one', () => {
    const mask = boxMask({ x0: 3, y0: 5, x1: 10, y1: 9 }, W, H);
    expect(maskBox(mask)).toEqual({ x0: 3, y0: 5, x1: 10, y1: 9 });
    expect(maskBox({ width: W, height: H, data: new Uint8Array(W * H) })).toBeUndefined();
  });

  it('appearance tells a red region from a blue one, and a thin region from a square', () => {
    const image = photo();
    const red = appearanceDescriptor(image, boxMask({ x0: 4, y0: 4, x1: 20, y1: 20 }, W, H));
    const blue = appearanceDescriptor(image, boxMask({ x0: 40, y0: 4, x1: 56, y1: 20 }, W, H));
    const thin = appearanceDescriptor(image, boxMask({ x0: 40, y0: 4, x1: 42, y1: 40 }, W, H));
    expect(red).toHaveLength(APPEARANCE_LENGTH);
    expect(red[0]).toBeGreaterThan(0.8);
    expect(red[2]).toBeLessThan(0.1);
    expect(blue[2]).toBeGreaterThan(0.8);
    // log aspect: square 0, thin strongly negative.
    expect(blue[APPEARANCE_LENGTH - 2]).toBeCloseTo(0, 6);
    expect(thin[APPEARANCE_LENGTH - 2]).toBeLessThan(-2);
  });

  it("detectors: the best overlapping detection's score per concept, nothing for boxes elsewhere", () => {
    const detection = (label: string, score: number, box: Detection['box']): Detection => ({ classIndex: 0, label: label as Detection['label'], score, box });
    const region = { x0: 10, y0: 10, x1: 30, y1: 30 };
    const out = detectorDescriptor(
      [detection('cat', 0.6, region), detection('cat', 0.3, region), detection('dog', 0.9, { x0: 40, y0: 40, x1: 60, y1: 60 }), detection('bear', 0.5, { x0: 10, y0: 10, x1: 30, y1: 22 })],
      region,
    );
    expect(out).toHaveLength(DETECTOR_CONCEPTS.length);
    expect(out[DETECTOR_CONCEPTS.indexOf('cat')]).toBeCloseTo(0.6, 6);
    expect(out[DETECTOR_CONCEPTS.indexOf('dog')]).toBe(0);
    // IoU 0.6 → scaled by 0.6 / 0.7.
    expect(out[DETECTOR_CONCEPTS.indexOf('bear')]).toBeCloseTo((0.5 * 0.6) / 0.7, 6);
  });

  it('sam: a cell made on demand is, to the last bit, the whole-photo normalisation (centred on the photo, not the padding)', () => {
    const channels = 8;
    const data = new Float32Array(channels * 64 * 64);
    for (let i = 0; i < data.length; i++) data[i] = Math.sin(i * 0.37) * 3 + (i % 13) / 7;
    // Wider than high: the lower rows of the grid are padding, which the mean leaves out.
    const whole = normalisedCells(data, channels, geometry(300, 170));
    const cells = samCells({ data, dims: [1, channels, 64, 64] }, 300, 170);
    for (const index of [0, 37, 64 * 20 + 5, 64 * 63 + 63]) {
      expect(Array.from(cells.cell(index))).toEqual(Array.from(whole.subarray(index * channels, (index + 1) * channels)));
    }
  });

  it('appearance is the same to the last bit as before it was made cheaper (a model keeps comparable examples)', () => {
    const width = 230;
    const height = 170;
    const data = new Uint8Array(width * height * 4);
    for (let i = 0; i < width * height; i++) data.set([(i * 37) % 256, (i * 101 + (i >> 3)) % 256, (i * i) % 253, 255], i * 4);
    // A box with a hole, wide enough that pixels are sampled with a stride of 2.
    const mask = boxMask({ x0: 10, y0: 5, x1: 220, y1: 160 }, width, height);
    for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) if ((x - 100) ** 2 + (y - 80) ** 2 < 900) mask.data[y * width + x] = 0;
    // Computed by the implementation before this one (per-pixel arrays), on the same input.
    expect(appearanceDescriptor({ width, height, data }, mask)).toEqual([
      0.4981145902034082, 0.49950326099473413, 0.4744731635312955, 0.2897783363106199, 0.2896798059367639, 0.2948727725473102,
      0.14057216515469195, 0.13988779169102536, 0.13524528694814614, 0.11635415753245283, 0.11766436597634182, 0.11551533822711152,
      0.1180662246927162, 0.11669466977751432, 0.6812350287770038, 0.7444725354103611, 0.37129512594787906, -0.2735959017767959,
      0.303682413798222, 0.9137019969278034,
    ]);
  });

  it('sam: regions over cells that differ get different unit vectors', () => {
    const channels = 4;
    const data = new Float32Array(channels * 64 * 64);
    // Channel 0 high on the left half of the model frame, channel 1 on the right.
    for (let r = 0; r < 64; r++) for (let q = 0; q < 64; q++) data[(q < 32 ? 0 : 1) * 4096 + r * 64 + q] = 1;
    const cells = samCells({ data, dims: [1, channels, 64, 64] }, 64, 64);
    const left: BinaryMask = boxMask({ x0: 0, y0: 0, x1: 20, y1: 64 }, 64, 64);
    const right: BinaryMask = boxMask({ x0: 44, y0: 0, x1: 64, y1: 64 }, 64, 64);
    const a = samDescriptor(cells, left);
    const b = samDescriptor(cells, right);
    expect(Math.hypot(...a)).toBeCloseTo(1, 6);
    expect(a.reduce((s, v, i) => s + v * b[i], 0)).toBeLessThan(0);
  });

  it('backbone: the mean of the grid cells under the mask, each weighed by its pixels in the mask', () => {
    // A 2×2 grid over a 64×48 photo, two channels: cell (r, q) holds [r, q] + 1.
    const data = Float32Array.from([1, 1, 1, 2, 2, 1, 2, 2]);
    const features = { data, rows: 2, columns: 2, channels: 2 };
    // Three quarters of the mask in the left column, one in the right, all in the top row.
    const out = backboneDescriptor(features, boxMask({ x0: 8, y0: 0, x1: 40, y1: 24 }, W, H));
    expect(out[0]).toBeCloseTo(1, 6);
    expect(out[1]).toBeCloseTo(0.75 * 1 + 0.25 * 2, 6);
    expect(backboneDescriptor(features, { width: W, height: H, data: new Uint8Array(W * H) })).toEqual([0, 0]);
    expect(backboneDescriptor(undefined, boxMask({ x0: 0, y0: 0, x1: 4, y1: 4 }, W, H))).toEqual([]);
  });

  it('fit: a region fitting a detection reads only the fit, one reaching past it or a part of it reads that, whatever the class', () => {
    const cat: Detection = { classIndex: 0, label: 'cat' as Detection['label'], score: 0.8, box: { x0: 20, y0: 20, x1: 60, y1: 60 } };
    expect(fitDescriptor([cat], cat.box)).toEqual([0, 0, 0.8]);
    // The cat and as much around it again: the cat fills half of the region's box.
    const [reachesPast, partOfSurroundings, fitsSurroundings] = fitDescriptor([cat], { x0: 20, y0: 20, x1: 100, y1: 60 });
    expect(reachesPast).toBeCloseTo(0.8 * 1 * 0.5, 6);
    expect(partOfSurroundings).toBeCloseTo(0.8 * 0.5 * 0.5, 6);
    expect(fitsSurroundings).toBeCloseTo(0.8 * 0.5, 6);
    // Its head: a quarter of the cat's box, all inside it.
    const [reachesPastHead, partOfHead, fitsHead] = fitDescriptor([cat], { x0: 20, y0: 20, x1: 40, y1: 40 });
    expect(reachesPastHead).toBeCloseTo(0.8 * 0.25 * 0.75, 6);
    expect(partOfHead).toBeCloseTo(0.8 * 1 * 0.75, 6);
    expect(fitsHead).toBeCloseTo(0.8 * 0.25, 6);
    expect(fitDescriptor([{ ...cat, label: 'bed' as Detection['label'] }], cat.box)).toEqual([0, 0, 0.8]);
    expect(fitDescriptor([], cat.box)).toEqual([0, 0, 0]);
  });

  it('a model of the default kinds learns the whole animal from its part and from it with its surroundings, which the other kinds see alike', () => {
    // What every other kind says of the three regions on a photo: the same raccoon-like numbers (the
    // detectors' "cat" overlaps all three by more than it takes to count fully, the pooled pixels are the
    // animal's). Only how each sits on the detector's box differs.
    const alike = { sam: [0.6, 0.8], detectors: DETECTOR_CONCEPTS.map((c) => (c === 'cat' ? 0.7 : 0)), appearance: Array.from({ length: APPEARANCE_LENGTH }, (_, i) => i / APPEARANCE_LENGTH), backbone: [] };
    const regions = (shift: number, score: number) => {
      const cat: Detection = { classIndex: 0, label: 'cat' as Detection['label'], score, box: { x0: 20 + shift, y0: 20, x1: 60 + shift, y1: 60 } };
      const on = (box: Detection['box']) => ({ ...alike, fit: fitDescriptor([cat], box) });
      return {
        whole: on({ x0: 21 + shift, y0: 20, x1: 60 + shift, y1: 59 }),
        head: on({ x0: 20 + shift, y0: 20, x1: 45 + shift, y1: 44 }),
        withSurroundings: on({ x0: 14 + shift, y0: 12, x1: 75 + shift, y1: 74 }),
      };
    };
    const model = new LearnedClasses();
    expect(model.toJSON().kinds).toEqual(DEFAULT_DESCRIPTOR_KINDS);
    for (let photo = 0; photo < 6; photo++) {
      const r = regions(photo * 3, 0.5 + photo * 0.07);
      model.learnAll([
        { descriptor: r.whole, classId: 'raccoon' },
        { descriptor: r.head, classId: null },
        { descriptor: r.withSurroundings, classId: null },
      ]);
    }
    const next = regions(40, 0.6);
    const raccoon = (d: typeof next.whole) => model.classify(d).find((c) => c.classId === 'raccoon')?.probability ?? 0;
    expect(raccoon(next.whole)).toBeGreaterThan(raccoon(next.head) + 0.2);
    expect(raccoon(next.whole)).toBeGreaterThan(raccoon(next.withSurroundings) + 0.2);
  });

  it('a descriptor without a kind the classifier reads is refused with what to do, not read short', () => {
    const old = { sam: [1], detectors: [0.5], appearance: [0.2], backbone: [] };
    expect(featureVector(old, ['sam', 'appearance'])).toEqual([1, 0.2]);
    expect(() => featureVector(old, ['sam', 'backbone'])).toThrow(/no "backbone" part.*models:detector/);
  });
});
