import type { BinaryMask } from '../../engine/types';

/** RGBA pixels painting a mask's inside in one colour and leaving the rest transparent. */
export function maskPixels(mask: BinaryMask, [r, g, b, a]: readonly [number, number, number, number]): Uint8ClampedArray<ArrayBuffer> {
  const pixels = new Uint8ClampedArray(mask.width * mask.height * 4);
  for (let i = 0; i < mask.data.length; i++) {
    if (!mask.data[i]) continue;
    pixels[i * 4] = r;
    pixels[i * 4 + 1] = g;
    pixels[i * 4 + 2] = b;
    pixels[i * 4 + 3] = a;
  }
  return pixels;
}
