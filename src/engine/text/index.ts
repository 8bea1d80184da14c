/** Text prompts and "find similar": the public surface for the server, the CLI and the studio. */
export { COCO_CLASSES, COCO_CATEGORY_IDS, type CocoClass } from './cocoClasses';
export { ALL_CONCEPTS, EXTRA_CONCEPTS, type Concept } from './concepts';
export { ObjectDetector, decodeDetections, detectorInputTensor, boxIoU, type Detection, type CornerBox, type DetectOptions } from './detector';
export { interpretPrompt, normalizePrompt, KNOWN_CONCEPTS, type PromptInterpretation, type KnownConcepts, type Extreme } from './promptParser';
export { COLOUR_NAMES, nameColour, maskColourHistogram, maskHasColour, type ColourName } from './colour';
export {
  TextPipeline,
  toSegmentResponse,
  cornerToCenterBox,
  DEFAULT_MIN_DETECTOR_SCORE,
  type TextInstance,
  type PromptResult,
  type TextPipelineOptions,
} from './pipeline';
export { findSimilar, type SimilarInstance, type SimilarOptions } from './similar';
export {
  createUpstreamTextSegmenter,
  UpstreamError,
  conceptSegmentUrl,
  type UpstreamTextSegmenter,
  type UpstreamOptions,
} from './upstream';
