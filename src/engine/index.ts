/** Public surface of the segmentation core (DOM- and Node-free). Adapters are imported from ./adapters/*. */
export * from './types';
export * from './runtime';
export { SegmentationEngine, EmbeddingMissingError, DEFAULT_EMBEDDING_CACHE_SIZE, DECODER_MULTIMASK_OUTPUTS } from './engine';
export type { EmbedResult, PredictResult } from './engine';
export { maskToPolygons, maskOutline, outerRings, rasterizePolygons, maskIoU } from './polygons';
export { DEFAULT_SEGMENTATION_OPTIONS, MIN_SPECK_PIXELS, segmentationOptions, speckArea } from './options';
export type { SegmentationOptions, OutlineOptions } from './options';
export type { MaskToPolygonOptions } from './polygons';
export { runPvs } from './pvs';
export type { PvsEngineRequest, PvsTimings } from './pvs';
export { preprocessImage, PIXEL_MEAN, PIXEL_STD } from './preprocess';
export { modelFrame, MODEL_SIZE, LOW_RES_SIZE } from './frame';
export type { ModelFrame } from './frame';
export { encodePrompt, boxCorners, PromptError } from './prompt';
export { imageContentKey } from './hash';
export { LruCache } from './lru';
export { upsampleLogitsToMask, maskArea } from './upsample';
