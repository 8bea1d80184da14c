import type { ImageEntry, SegObject } from '../state/model';
import { encodePng } from './png';
import { fillPolygons } from './rasterize';

/**
 * An instance mask: 8-bit grayscale, 0 = background, n = the n-th object of the list (later objects
 * paint over earlier ones). Up to 255 objects per image.
 */
export function instanceIndexMask(image: ImageEntry, objects: readonly SegObject[]): Uint8Array {
  if (objects.length > 255) throw new Error('the PNG mask holds at most 255 objects');
  const pixels = new Uint8Array(image.width * image.height);
  objects.forEach((object, index) => fillPolygons(pixels, image.width, image.height, object.polygons, index + 1));
  return pixels;
}

export function toMaskPng(image: ImageEntry, objects: readonly SegObject[]): Promise<Uint8Array> {
  return encodePng(image.width, image.height, instanceIndexMask(image, objects), 'gray');
}
