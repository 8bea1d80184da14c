import { describe, expect, it } from 'vitest';
import { modelFrame } from './frame';
import { boxCorners, encodePrompt, PromptError } from './prompt';

const frame = modelFrame(600, 400); // model frame 1024×683

describe('boxCorners', () => {
  it('turns the service’s center-anchored box into SAM corners with labels 2 and 3', () => {
    expect(boxCorners({ x: 300, y: 200, width: 100, height: 50 }, 600, 400)).toEqual([
      { x: 250, y: 175, label: 2 },
      { x: 350, y: 225, label: 3 },
    ]);
  });

  it('clamps corners to the image', () => {
    expect(boxCorners({ x: 10, y: 390, width: 100, height: 100 }, 600, 400)).toEqual([
      { x: 0, y: 340, label: 2 },
      { x: 60, y: 400, label: 3 },
    ]);
  });
});

describe('encodePrompt', () => {
  it('scales points to the model frame and appends the padding point when there is no box', () => {
    const feeds = encodePrompt({ points: [{ x: 300, y: 200 }, { x: 60, y: 40, positive: false }] }, frame);
    expect(feeds.point_coords.dims).toEqual([1, 3, 2]);
    expect(Array.from(feeds.point_coords.data)).toEqual([512, 341.5, 102.4, 68.3].map(Math.fround).concat([0, 0]));
    expect(Array.from(feeds.point_labels.data)).toEqual([1, 0, -1]);
    expect(feeds.has_mask_input.data[0]).toBe(0);
    expect(feeds.mask_input.dims).toEqual([1, 1, 256, 256]);
    expect(Array.from(feeds.orig_im_size.data)).toEqual([400, 600]);
  });

  it('puts box corners after the points and adds no padding point', () => {
    const feeds = encodePrompt({ points: [{ x: 300, y: 200 }], box: { x: 300, y: 200, width: 300, height: 200 } }, frame);
    expect(Array.from(feeds.point_labels.data)).toEqual([1, 2, 3]);
    const s = 1024 / 600;
    const t = 683 / 400;
    const expected = [300 * s, 200 * t, 150 * s, 100 * t, 450 * s, 300 * t].map(Math.fround);
    Array.from(feeds.point_coords.data).forEach((v, i) => expect(v).toBeCloseTo(expected[i], 3));
  });

  it('accepts a box alone', () => {
    const feeds = encodePrompt({ box: { x: 300, y: 200, width: 10, height: 10 } }, frame);
    expect(Array.from(feeds.point_labels.data)).toEqual([2, 3]);
  });

  it('feeds previous logits back as mask_input', () => {
    const previous = new Float32Array(256 * 256).fill(3);
    const feeds = encodePrompt({ points: [{ x: 1, y: 1 }], maskInput: previous }, frame);
    expect(feeds.has_mask_input.data[0]).toBe(1);
    expect(feeds.mask_input.data).toBe(previous);
    expect(() => encodePrompt({ points: [{ x: 1, y: 1 }], maskInput: new Float32Array(10) }, frame)).toThrow(PromptError);
  });

  it('rejects prompts without a box or positive point, and non-finite coordinates', () => {
    expect(() => encodePrompt({ points: [] }, frame)).toThrow(PromptError);
    expect(() => encodePrompt({ points: [{ x: 5, y: 5, positive: false }] }, frame)).toThrow(/positive point/);
    expect(() => encodePrompt({ points: [{ x: Number.NaN, y: 5 }] }, frame)).toThrow(PromptError);
    expect(() => encodePrompt({ box: { x: 5, y: 5, width: 0, height: 5 } }, frame)).toThrow(PromptError);
  });
});
