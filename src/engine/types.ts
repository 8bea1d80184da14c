/** Plain data types of the segmentation core. No DOM, no Node. */

/** 8-bit RGBA pixels, row-major, as produced by canvas ImageData or sharp's `.ensureAlpha().raw()`. */
export interface RgbaImage {
  readonly width: number;
  readonly height: number;
  readonly data: Uint8Array | Uint8ClampedArray;
}

/** A point prompt in image pixels of the uploaded image. */
export interface PointPrompt {
  readonly x: number;
  readonly y: number;
  /** true = include (SAM label 1), false = exclude (label 0). Default true. */
  readonly positive?: boolean;
}

/** The service's CENTER-anchored box: x, y are the center, in image pixels. */
export interface BoxPrompt {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export interface VisualPrompt {
  readonly points?: readonly PointPrompt[];
  readonly box?: BoxPrompt;
  /** 256x256 low-resolution logits of a previous prediction, fed back as SAM's `mask_input`. */
  readonly maskInput?: Float32Array;
}

/** One byte per pixel, 0 or 1, at the original image resolution. */
export interface BinaryMask {
  readonly width: number;
  readonly height: number;
  readonly data: Uint8Array;
}

export interface MaskCandidate {
  readonly mask: BinaryMask;
  /** The decoder's predicted IoU, clamped to [0, 1]. */
  readonly score: number;
  /** 256x256 logits over the padded 1024 frame, for feeding back as `maskInput`. */
  readonly lowResLogits: Float32Array;
  /** Number of pixels set in `mask`. */
  readonly area: number;
  /** SAM's mask token: 0 = the single-mask output, 1..3 = the multimask outputs (subpart → whole). */
  readonly token?: number;
}

export type Vertex = [number, number];
/** A closed ring; the first vertex is not repeated at the end. */
export type Ring = Vertex[];
export interface PolygonWithHoles {
  readonly outer: Ring;
  readonly holes: Ring[];
}
