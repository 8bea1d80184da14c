import type { RgbaImage } from '../../engine/types';
import { maskBounds } from '../../engine/bounds';
import type { Annotation } from '../annotation';
import { baseName } from './imported';
import { objectGeometry } from '../objectGeometry';
import { encodePng } from './png';
import type { Dataset, DatasetImage } from './dataset';
import { textEntry, writeZip, type ZipEntry } from './zip';
import type { DatasetFormat } from './format';

export const STACKING_ORDER =
  'Objects are painted in the order listed (the studio object list, top to bottom = bottom to top of the canvas): where objects overlap, the later one owns the pixel.';

/**
 * An instance mask: 0 = background, n = the n-th object of the list (each object's exported mask,
 * objectGeometry.ts). Later objects paint over earlier ones, exactly as the studio draws them. Up to
 * 255 objects per image.
 */
export function instanceIndexMask(entry: DatasetImage): Uint8Array {
  if (entry.objects.length > 255) throw new Error(`${entry.image.name}: a PNG mask holds at most 255 objects`);
  const pixels = new Uint8Array(entry.image.width * entry.image.height);
  entry.objects.forEach(({ kind, geometry }, index) => {
    // A box keeps its number (VOC's XML lists it) but owns no pixel: it has no outline.
    if (kind === 'box') return;
    const data = geometry.mask.data;
    for (let i = 0; i < pixels.length; i++) if (data[i]) pixels[i] = index + 1;
  });
  return pixels;
}

/** A semantic mask: value = class id of the object that owns the pixel (same stacking), 0 = background. */
export function semanticMask(entry: DatasetImage): Uint8Array {
  const classOf = [0, ...entry.objects.map((o) => o.categoryId)];
  if (classOf.some((id) => id > 255)) throw new Error('a semantic PNG holds class ids up to 255');
  return instanceIndexMask(entry).map((v) => classOf[v]);
}

export interface MaskLegend {
  image: string;
  stacking: string;
  instances: Array<{ value: number; objectId: string; label: string; classId: number; className: string }>;
  classes: Array<{ value: number; name: string }>;
}

export function maskLegend(entry: DatasetImage, dataset: Pick<Dataset, 'categories'>): MaskLegend {
  return {
    image: entry.image.name,
    stacking: STACKING_ORDER,
    instances: entry.objects.map(({ object, categoryId }, i) => ({
      value: i + 1,
      objectId: object.id,
      label: object.label,
      classId: categoryId,
      className: dataset.categories.find((c) => c.id === categoryId)!.name,
    })),
    classes: dataset.categories.map((c) => ({ value: c.id, name: c.name })),
  };
}

export async function pngMasksZip(dataset: Dataset): Promise<Uint8Array> {
  const files: ZipEntry[] = [];
  for (const entry of dataset.images) {
    const { image } = entry;
    const base = baseName(image.name);
    files.push({ name: `${base}.instances.png`, data: await encodePng(image.width, image.height, instanceIndexMask(entry), 'gray') });
    files.push({ name: `${base}.semantic.png`, data: await encodePng(image.width, image.height, semanticMask(entry), 'gray') });
    files.push(textEntry(`${base}.legend.json`, JSON.stringify(maskLegend(entry, dataset), null, 2)));
  }
  return writeZip(files);
}

export const pngMasksFormat: DatasetFormat = {
  id: 'png-masks',
  holds: { mask: true, box: false, tag: false },
  label: 'PNG masks zip',
  summary: 'per image: instance PNG, semantic PNG (value = class id), legend JSON',
  async write(dataset) {
    return { name: 'maskwright-session.masks.zip', bytes: await pngMasksZip(dataset), mime: 'application/zip' };
  },
};

/** The object alone on transparency, cropped to its box: RGBA pixels of the image where its exported mask is set. */
export function cutOut(rgba: RgbaImage, object: Annotation): RgbaImage | null {
  const mask = objectGeometry(object, rgba.width, rgba.height)?.mask;
  const bounds = mask && maskBounds(mask.data, mask.width, mask.height);
  if (!mask || !bounds) return null;
  const [left, top, width, height] = [bounds.x0, bounds.y0, bounds.x1 - bounds.x0 + 1, bounds.y1 - bounds.y0 + 1];
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

export async function cutOutPng(rgba: RgbaImage, object: Annotation): Promise<Uint8Array | null> {
  const cut = cutOut(rgba, object);
  return cut ? encodePng(cut.width, cut.height, cut.data as Uint8Array, 'rgba') : null;
}
