import { describe, expect, it } from 'vitest';
import { localDecodeRequest, wantsMultimask } from './localDecodeRequest';

const logits = new Float32Array([1, 2, 3]);
const point = (x: number, positive = true) => ({ x, y: 10, positive });

describe('localDecodeRequest', () => {
  it('one click or a box alone: several candidates, no earlier mask fed back', () => {
    expect(wantsMultimask({ points: [point(1)], box: null })).toBe(true);
    expect(localDecodeRequest({ points: [point(1)], box: null }, logits, 0.7)).toEqual({ prompt: { points: [point(1)], box: undefined, maskInput: undefined }, options: { multimask: true, tolerance: 0.7, mirrorAverage: false } });
    expect(localDecodeRequest({ points: [], box: { x: 5, y: 5, width: 4, height: 4 } }, logits, 1).options.multimask).toBe(true);
  });

  it('a further click or a box with points: one refined mask, continuing from the selected one', () => {
    const request = localDecodeRequest({ points: [point(1), point(2, false)], box: null }, logits, 1);
    expect(request.options.multimask).toBe(false);
    expect(request.prompt.maskInput).toBe(logits);
    expect(wantsMultimask({ points: [point(1)], box: { x: 5, y: 5, width: 4, height: 4 } })).toBe(false);
  });
});
