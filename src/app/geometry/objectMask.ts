import type { BinaryMask } from '../../engine/types';
import { fillPolygons } from '../../annotations/rasterize';
import { isBox, type Annotation } from '../../annotations/annotation';
import { boxPolygon } from './boxHandles';

/** The object's pixels: its own mask when it has one of the image's size, else its polygons (a box: its rectangle) filled. */
export function objectMask(object: Pick<Annotation, 'mask' | 'polygons' | 'kind' | 'box'>, width: number, height: number): BinaryMask {
  if (object.mask && object.mask.width === width && object.mask.height === height) return object.mask;
  const data = new Uint8Array(width * height);
  fillPolygons(data, width, height, isBox(object) ? [boxPolygon(object.box)] : object.polygons, 1);
  return { width, height, data };
}
