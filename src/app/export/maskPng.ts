import type { RgbaImage } from '../../engine/types';
import { maskBox } from '../geometry/maskPaint';
import { objectMask } from '../geometry/objectMask';
import type { ImageEntry, SegObject } from '../state/model';
import { categoryIdOf, type DatasetCategory } from './categories';
import { encodePng } from './png';
import { baseName } from './yolo';
import { textEntry, writeZip, type ZipEntry } from './zip';

export const STACKING_ORDER =
  'Objects are painted in the order listed (the studio object list, top to bottom = bottom to top of the canvas): where objects overlap, the later one owns the pixel.';

/**
 * An instance mask: 8-bit grayscale, 0 = background, n = the n-th object of the list. Later objects
 * paint over earlier ones, exactly as the studio draws them. Up to 255 objects per image.
 */
export function instanceIndexMask(image: ImageEntry, objects: readonly SegObject[]): Uint8Array {
  if (objects.length > 255) throw new Error('the PNG mask holds at most 255 objects');
  const pixels = new Uint8Array(image.width * image.height);
  objects.forEach((object, index) => {
    const mask = objectMask(object, image.width, image.height);
    for (let i = 0; i < pixels.length; i++) if (mask.data[i]) pixels[i] = index + 1;
  });
  return pixels;
}

/** A semantic mask: value = class id of the object that owns the pixel (same stacking), 0 = background. */
export function semanticMask(image: ImageEntry, objects: readonly SegObject[], categories: readonly DatasetCategory[]): Uint8Array {
  const instances = instanceIndexMask(image, objects);
  const classOf = [0, ...objects.map((o) => categoryIdOf(categories, o))];
  if (classOf.some((id) => id > 255)) throw new Error('the semantic PNG holds class ids up to 255');
  return instances.map((v) => classOf[v]);
}

export interface MaskLegend {
  image: string;
  stacking: string;
  instances: Array<{ value: number; objectId: string; label: string; classId: number; className: string }>;
  classes: Array<{ value: number; name: string }>;
}

export function maskLegend(image: ImageEntry, objects: readonly SegObject[], categories: readonly DatasetCategory[]): MaskLegend {
  return {
    image: image.name,
    stacking: STACKING_ORDER,
    instances: objects.map((o, i) => {
      const classId = categoryIdOf(categories, o);
      return { value: i + 1, objectId: o.id, label: o.label, classId, className: categories.find((c) => c.id === classId)!.name };
    }),
    classes: categories.map((c) => ({ value: c.id, name: c.name })),
  };
}

export async function pngMasksZip(entries: ReadonlyArray<{ image: ImageEntry; objects: readonly SegObject[] }>, categories: readonly DatasetCategory[]): Promise<Uint8Array> {
  const files: ZipEntry[] = [];
  for (const { image, objects } of entries) {
    const base = baseName(image.name);
    files.push({ name: `${base}.instances.png`, data: await encodePng(image.width, image.height, instanceIndexMask(image, objects), 'gray') });
    files.push({ name: `${base}.semantic.png`, data: await encodePng(image.width, image.height, semanticMask(image, objects, categories), 'gray') });
    files.push(textEntry(`${base}.legend.json`, JSON.stringify(maskLegend(image, objects, categories), null, 2)));
  }
  return writeZip(files);
}

/** The object alone on transparency, cropped to its box: RGBA pixels of the image where the mask is set. */
export function cutOut(rgba: RgbaImage, object: SegObject): RgbaImage | null {
  const mask = objectMask(object, rgba.width, rgba.height);
  const box = maskBox(mask);
  if (!box) return null;
  const [left, top, width, height] = box;
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const source = (top + y) * rgba.width + left + x;
      if (!mask.data[source]) continue;
      data.set(rgba.data.subarray(source * 4, source * 4 + 4), (y * width + x) * 4);
    }
  }
  return { width, height, data };
}

export async function cutOutPng(rgba: RgbaImage, object: SegObject): Promise<Uint8Array | null> {
  const cut = cutOut(rgba, object);
  return cut ? encodePng(cut.width, cut.height, cut.data as Uint8Array, 'rgba') : null;
}
