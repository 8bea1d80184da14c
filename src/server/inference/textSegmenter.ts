/**
 * Text prompts (/api/v1/segment) inside an inference worker: the COCO-80 detector + SAM pipeline of
 * src/engine/text, on the worker's own engine, so all prompts of a request share one encoder run and
 * a later /pvs on the same image finds the embedding cached.
 */
import { loadNodeTextSegmenter } from '../../engine/adapters/textNode';
import type { SegmentationEngine } from '../../engine/engine';
import type { TextSegmenter } from '../../engine/text/pipeline';

export type { TextSegmenter };

export async function createTextSegmenter(engine: SegmentationEngine, options: { modelDir?: string; threads?: number } = {}): Promise<TextSegmenter> {
  return loadNodeTextSegmenter(engine, options);
}
