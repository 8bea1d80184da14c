/**
 * The HTTP API's answers as the engine builds them (runPvs, the text pipeline, the SAM 3 upstream
 * adapter, segment everything). The engine does not import src/contract: the contract imports the engine (its option
 * defaults, its pixel limit) and its zod schemas describe these same shapes, which a type test in
 * src/contract/segmentation.test.ts holds equal.
 */

/** An outer ring in image pixels. */
export type Ring = [number, number][];

export interface PvsAnswer {
  /** One element per request (PVS segments one object per request); candidates best first. */
  prompts: { predictions: { masks: Ring[]; confidence: number }[] }[];
  /** The id under which the image embedding is cached: the request's imageId or a content hash. */
  imageId: string;
}

export interface SegmentAnswer {
  prompt_results: { echo: { text: string }; predictions: { label: string; confidence: number; masks: Ring[] }[] }[];
}

/** Segment everything's proposals, best first; `label` names the detector's class when a detector's box prompted it. */
export interface EverythingAnswer {
  predictions: { confidence: number; masks: Ring[]; source: 'detector' | 'grid'; label?: string }[];
}

/**
 * Largest decoded image, in pixels (width × height): the decoder refuses more, and the API checks the
 * same limit from the file's header before any charge (src/contract/limits.ts publishes it).
 */
export const MAX_IMAGE_PIXELS = 40_000_000;
