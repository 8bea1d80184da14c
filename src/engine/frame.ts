/**
 * Geometry between the uploaded image and SAM's 1024×1024 model frame.
 *
 * SAM resizes the longest side to 1024 (the other side rounded like `int(x + 0.5)`), then pads the
 * bottom and right. Prompt coordinates are scaled per axis by the rounded size, exactly like
 * segment-anything's `ResizeLongestSide.apply_coords`, so a click lands on the same model pixel as in
 * the reference implementation.
 */
export const MODEL_SIZE = 1024;
/** Side of the decoder's low-resolution logits, covering the padded 1024 frame. */
export const LOW_RES_SIZE = 256;

export interface ModelFrame {
  /** Uploaded image size. */
  readonly width: number;
  readonly height: number;
  /** Size of the resized image inside the 1024 frame (the rest is padding). */
  readonly resizedWidth: number;
  readonly resizedHeight: number;
  /** Image pixels → model-frame pixels, per axis. */
  readonly scaleX: number;
  readonly scaleY: number;
}

export function modelFrame(width: number, height: number, modelSize = MODEL_SIZE): ModelFrame {
  if (!(Number.isInteger(width) && Number.isInteger(height) && width > 0 && height > 0)) {
    throw new RangeError(`image size must be positive integers, got ${width}×${height}`);
  }
  const scale = modelSize / Math.max(width, height);
  const resizedWidth = Math.floor(width * scale + 0.5);
  const resizedHeight = Math.floor(height * scale + 0.5);
  return {
    width,
    height,
    resizedWidth,
    resizedHeight,
    scaleX: resizedWidth / width,
    scaleY: resizedHeight / height,
  };
}

export function toModelCoords(frame: ModelFrame, x: number, y: number): [number, number] {
  return [x * frame.scaleX, y * frame.scaleY];
}
