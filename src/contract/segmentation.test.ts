import { describe, expect, expectTypeOf, it } from 'vitest';
import type { EverythingAnswer, PvsAnswer, SegmentAnswer } from '../engine/answers';
import { EverythingResponse, PvsResponse, SegmentResponse } from './segmentation';

// The server relies on these schemas alone to refuse an engine result with non-finite numbers.
describe('response schemas keep every number finite', () => {
  const pvs = (x: number, confidence = 0.9) => ({
    prompts: [{ predictions: [{ masks: [[[0, 0], [x, 0], [4, 4]]], confidence }] }],
    imageId: 'img',
  });
  const segment = (y: number) => ({
    prompt_results: [{ echo: { text: 'cat' }, predictions: [{ label: 'cat', confidence: 0.5, masks: [[[0, 0], [4, y], [4, 4]]] }] }],
  });

  it('accepts finite coordinates', () => {
    expect(PvsResponse.safeParse(pvs(4)).success).toBe(true);
    expect(SegmentResponse.safeParse(segment(1)).success).toBe(true);
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])('refuses %s as a coordinate or a confidence', (bad) => {
    expect(PvsResponse.safeParse(pvs(bad)).success).toBe(false);
    expect(PvsResponse.safeParse(pvs(4, bad)).success).toBe(false);
    expect(SegmentResponse.safeParse(segment(bad)).success).toBe(false);
  });
});

describe('the engine builds the answers this contract describes', () => {
  it('PvsResponse, SegmentResponse and EverythingResponse are the engine’s PvsAnswer, SegmentAnswer and EverythingAnswer (checked by the type checker)', () => {
    expectTypeOf<PvsResponse>().toEqualTypeOf<PvsAnswer>();
    expectTypeOf<SegmentResponse>().toEqualTypeOf<SegmentAnswer>();
    expectTypeOf<EverythingResponse>().toEqualTypeOf<EverythingAnswer>();
  });
});
