/**
 * The seam for text prompts (/api/v1/segment). Issue 5 plugs the real text-prompted segmenter in
 * here: implement `TextSegmenter` and return it from `createTextSegmenter`. Until then the honest
 * answer is "found nothing" for every prompt — which the billing flow refunds (empty mask set),
 * so nobody pays for a feature that is not there yet.
 */
import type { SegmentResponse } from '../../contract/segmentation';
import type { SegmentationEngine } from '../../engine/engine';
import type { RgbaImage } from '../../engine/types';

export interface TextSegmenter {
  /** One `prompt_results` element per prompt, in order; `echo.text` is the prompt. */
  segment(image: RgbaImage, prompts: string[], imageId?: string): Promise<SegmentResponse>;
}

export const textSegmentationAvailable = false;

export class NoTextSegmenter implements TextSegmenter {
  async segment(_image: RgbaImage, prompts: string[]): Promise<SegmentResponse> {
    return { prompt_results: prompts.map((text) => ({ echo: { text }, predictions: [] })) };
  }
}

export async function createTextSegmenter(_engine: SegmentationEngine): Promise<TextSegmenter> {
  return new NoTextSegmenter();
}
