/** The inclusive pixel rectangle around a mask's set pixels (row-major, one byte per pixel). */
export interface PixelBounds {
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
}

/**
 * Undefined when no pixel is set. A value above 0 counts as set: a mask's 1s, or the positive logits of
 * a decoder output. `stride` is the length of a row in `data` when only its top-left `width` × `height`
 * is looked at (the 256² low-res logits of a photo narrower or shorter than the model's square).
 */
export function maskBounds(data: Uint8Array | Float32Array, width: number, height: number, stride = width): PixelBounds | undefined {
  let x0 = width;
  let y0 = height;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < height; y++) {
    const row = y * stride;
    for (let x = 0; x < width; x++) {
      if (!(data[row + x] > 0)) continue;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      y1 = y;
    }
  }
  return x1 < 0 ? undefined : { x0, y0, x1, y1 };
}
