import type { BinaryMask } from '../../engine/types';
import { fillPolygons } from '../../annotations/rasterize';
import type { Annotation } from '../../annotations/annotation';

/** The object's pixels: its own mask when it has one of the image's size, else its polygons filled. */
export function objectMask(object: Pick<Annotation, 'mask' | 'polygons'>, width: number, height: number): BinaryMask {
  if (object.mask && object.mask.width === width && object.mask.height === height) return object.mask;
  const data = new Uint8Array(width * height);
  fillPolygons(data, width, height, object.polygons, 1);
  return { width, height, data };
}
