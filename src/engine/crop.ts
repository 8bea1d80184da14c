import type { RgbaImage } from './types';

/** The pixels of `image` inside a box (x1 and y1 exclusive, integer photo pixels), as a new image. */
export function cropImage(image: RgbaImage, box: { readonly x0: number; readonly y0: number; readonly x1: number; readonly y1: number }): RgbaImage {
  const width = box.x1 - box.x0;
  const height = box.y1 - box.y0;
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    const from = ((box.y0 + y) * image.width + box.x0) * 4;
    data.set(image.data.subarray(from, from + width * 4), y * width * 4);
  }
  return { width, height, data };
}
