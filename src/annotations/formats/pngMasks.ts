import type { RgbaImage } from '../../engine/types';
import { maskBounds } from '../../engine/bounds';
import type { Annotation } from '../annotation';
import { baseName, fileNameOf, jsonFilesWhere, type ImportedAnnotation, type ImportedCategory, type ImportedDataset, type ImportedImage, type InputFile } from './imported';
import { objectGeometry } from '../objectGeometry';
import { decodePng, encodePng, gray16Bytes } from './png';
import type { Dataset, DatasetImage } from './dataset';
import { textEntry, writeZip, type ZipEntry } from './zip';
import type { DatasetFormat } from './format';

export const STACKING_ORDER =
  'Objects are painted largest first (by area; equal areas in the order listed): where objects overlap, the smaller one owns the pixel, so an object nested in or overlapping a bigger one stays visible. What a bigger object loses under smaller ones is listed in NOTES.md.';

/** The most objects an 8-bit mask holds (0 is the background); more go into a 16-bit PNG. */
export const EIGHT_BIT_OBJECTS = 255;
/** The most objects (or the highest class id) a 16-bit mask holds. */
export const SIXTEEN_BIT_VALUES = 65535;

/** List indices in painting order: largest area first, equal areas in list order. */
export function paintingOrder(entry: DatasetImage): number[] {
  return entry.objects.map((_, i) => i).sort((a, b) => entry.objects[b].geometry.area - entry.objects[a].geometry.area || a - b);
}

/**
 * An instance mask: 0 = background, n = the n-th object of the list (each object's exported mask,
 * objectGeometry.ts), painted in `paintingOrder` so one-owner pixels keep every object visible
 * that can be. 16-bit values: written to an 8-bit PNG when they fit (`maskPng`).
 */
export function instanceIndexMask(entry: DatasetImage): Uint16Array {
  const { width, height } = entry.image;
  if (entry.objects.length > SIXTEEN_BIT_VALUES) throw new Error(`${entry.image.name}: a PNG mask holds at most ${SIXTEEN_BIT_VALUES} objects`);
  const pixels = new Uint16Array(width * height);
  for (const index of paintingOrder(entry)) {
    // A box keeps its number (VOC's XML lists it) but owns no pixel: it has no outline.
    if (entry.objects[index].kind === 'box') continue;
    const { mask, bbox } = entry.objects[index].geometry;
    // Only the object's box can hold its pixels: a mask of many small objects stays cheap.
    const [x0, y0] = [Math.max(0, Math.floor(bbox[0])), Math.max(0, Math.floor(bbox[1]))];
    const [x1, y1] = [Math.min(width, Math.ceil(bbox[0] + bbox[2])), Math.min(height, Math.ceil(bbox[1] + bbox[3]))];
    for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) if (mask.data[y * width + x]) pixels[y * width + x] = index + 1;
  }
  return pixels;
}

/** A semantic mask: value = class id of the object that owns the pixel (same painting), 0 = background. */
export function semanticMask(entry: DatasetImage, instances: Uint16Array = instanceIndexMask(entry)): Uint16Array {
  const classOf = [0, ...entry.objects.map((o) => o.categoryId)];
  if (classOf.some((id) => id > SIXTEEN_BIT_VALUES)) throw new Error(`a semantic PNG holds class ids up to ${SIXTEEN_BIT_VALUES}`);
  return instances.map((v) => classOf[v]);
}

/**
 * What one-owner pixels cost, in words: every object that keeps fewer pixels in `instances` than
 * its own area, named, with what it keeps. Empty when every object is whole.
 */
export function lostPixelNotes(entry: DatasetImage, instances: Uint16Array, dataset: Pick<Dataset, 'categories'>): string[] {
  const kept = new Array<number>(entry.objects.length + 1).fill(0);
  for (let i = 0; i < instances.length; i++) kept[instances[i]]++;
  return entry.objects.flatMap(({ object, kind, categoryId, geometry }, i) => {
    const owned = kept[i + 1];
    // A box owns no pixel by design (instanceIndexMask).
    if (kind === 'box' || owned >= geometry.area) return [];
    const name = `${entry.image.name}: object ${i + 1} "${object.label}" (${dataset.categories.find((c) => c.id === categoryId)?.name ?? categoryId})`;
    return [owned === 0 ? `${name} has no pixel left in the masks: objects painted over it cover all ${geometry.area}` : `${name} keeps ${owned} of its ${geometry.area} pixels in the masks: smaller objects cover the rest`];
  });
}

/**
 * A mask PNG: 8-bit (`palette` given: indexed in it) when every value is at most `eightBitMax`,
 * otherwise 16-bit grayscale, which no 8-bit tool misreads as other objects.
 */
export async function maskPng(width: number, height: number, values: Uint16Array, eightBitMax: number, palette?: Uint8Array): Promise<{ png: Uint8Array; bitDepth: 8 | 16 }> {
  let max = 0;
  for (let i = 0; i < values.length; i++) if (values[i] > max) max = values[i];
  if (max > eightBitMax) return { png: await encodePng(width, height, gray16Bytes(values), 'gray16'), bitDepth: 16 };
  return { png: await encodePng(width, height, Uint8Array.from(values), palette ? 'indexed' : 'gray', palette), bitDepth: 8 };
}

export interface MaskLegend {
  image: string;
  stacking: string;
  /** Bits per pixel of the instance PNG and of the semantic PNG (16 when a value exceeds 255). */
  bitDepth?: { instances: 8 | 16; semantic: 8 | 16 };
  instances: Array<{ value: number; objectId: string; label: string; classId: number; className: string }>;
  classes: Array<{ value: number; name: string }>;
}

export function maskLegend(entry: DatasetImage, dataset: Pick<Dataset, 'categories'>): MaskLegend {
  return {
    image: fileNameOf(entry.image.name),
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

/** NOTES.md of a mask zip: what a reader of the PNGs should know, and what was lost. */
export function notesEntry(format: string, notes: readonly string[]): ZipEntry[] {
  if (notes.length === 0) return [];
  return [textEntry('NOTES.md', `# Notes on this ${format} export\n\n${notes.map((n) => `- ${n}`).join('\n')}\n`)];
}

export async function pngMasksExport(dataset: Dataset): Promise<{ zip: Uint8Array; notes: string[] }> {
  const files: ZipEntry[] = [];
  const notes: string[] = [];
  for (const entry of dataset.images) {
    const { image } = entry;
    const base = baseName(image.name);
    const instanceValues = instanceIndexMask(entry);
    const instances = await maskPng(image.width, image.height, instanceValues, EIGHT_BIT_OBJECTS);
    const semantic = await maskPng(image.width, image.height, semanticMask(entry, instanceValues), EIGHT_BIT_OBJECTS);
    if (instances.bitDepth === 16) notes.push(`${image.name}: ${entry.objects.length} objects, more than an 8-bit PNG holds: ${base}.instances.png is 16-bit grayscale`);
    if (semantic.bitDepth === 16) notes.push(`${image.name}: class ids above 255: ${base}.semantic.png is 16-bit grayscale`);
    notes.push(...lostPixelNotes(entry, instanceValues, dataset));
    files.push({ name: `${base}.instances.png`, data: instances.png });
    files.push({ name: `${base}.semantic.png`, data: semantic.png });
    const legend = maskLegend(entry, dataset);
    if (instances.bitDepth === 16 || semantic.bitDepth === 16) legend.bitDepth = { instances: instances.bitDepth, semantic: semantic.bitDepth };
    files.push(textEntry(`${base}.legend.json`, JSON.stringify(legend, null, 2)));
  }
  return { zip: writeZip([...files, ...notesEntry('PNG masks', notes)]), notes };
}

export async function pngMasksZip(dataset: Dataset): Promise<Uint8Array> {
  return (await pngMasksExport(dataset)).zip;
}

const isLegend = (json: unknown): json is MaskLegend =>
  !!json && typeof json === 'object' && typeof (json as MaskLegend).image === 'string' && Array.isArray((json as MaskLegend).instances) && Array.isArray((json as MaskLegend).classes);

/** A mask PNG's values, 8- or 16-bit. */
export async function maskValues(bytes: Uint8Array): Promise<{ width: number; height: number; values: ArrayLike<number> }> {
  const png = await decodePng(bytes);
  if (png.channels !== 1) throw new Error('a mask PNG has one channel (gray or indexed)');
  return { width: png.width, height: png.height, values: png.samples16 ?? png.pixels };
}

/** The studio's own PNG masks zip: each legend with its instance PNG (the semantic PNG adds nothing to it). */
export async function readPngMasks(files: readonly InputFile[]): Promise<{ dataset: ImportedDataset; consumed: string[] } | undefined> {
  const legends = jsonFilesWhere(files, isLegend).filter((l) => /\.legend\.json$/i.test(l.file.name));
  if (legends.length === 0) return undefined;
  const images: ImportedImage[] = [];
  const categories: ImportedCategory[] = [];
  const annotations: ImportedAnnotation[] = [];
  const problems: string[] = [];
  const consumed: string[] = [];
  for (const { file, json } of legends) {
    consumed.push(file.name);
    const stem = file.name.replace(/\.legend\.json$/i, '');
    const byName = (suffix: string) => files.find((f) => f.name.toLowerCase() === `${stem}${suffix}`.toLowerCase());
    const semanticPng = byName('.semantic.png');
    if (semanticPng) consumed.push(semanticPng.name);
    for (const c of json.classes) if (!categories.some((k) => k.id === c.value)) categories.push({ id: c.value, name: c.name });
    const fileName = fileNameOf(json.image);
    const instancesPng = byName('.instances.png');
    if (!instancesPng) {
      problems.push(`${fileName}: ${json.instances.length} objects listed in ${fileNameOf(file.name)} but its .instances.png is missing`);
      continue;
    }
    consumed.push(instancesPng.name);
    let decoded: Awaited<ReturnType<typeof maskValues>>;
    try {
      decoded = await maskValues(instancesPng.bytes);
    } catch (error) {
      problems.push(`${fileNameOf(instancesPng.name)}: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    const { width, height, values } = decoded;
    images.push({ name: fileName, width, height });
    const masks = new Map(json.instances.map((instance) => [instance.value, new Uint8Array(width * height)]));
    for (let i = 0; i < values.length; i++) {
      const mask = values[i] && masks.get(values[i]);
      if (mask) mask[i] = 1;
    }
    for (const instance of json.instances) {
      const data = masks.get(instance.value)!;
      if (data.some((v) => v)) annotations.push({ fileName, className: instance.className, label: instance.label, mask: { width, height, data } });
      else problems.push(`${fileName}: object ${instance.value} "${instance.label}" has no pixels in ${fileNameOf(instancesPng.name)}`);
    }
  }
  return { dataset: { format: 'png-masks', images, categories, annotations, problems }, consumed };
}

export const pngMasksFormat: DatasetFormat = {
  id: 'png-masks',
  holds: { mask: true, box: false, tag: false },
  label: 'PNG masks zip',
  summary: 'per image: instance PNG, semantic PNG (value = class id), legend JSON; 16-bit PNGs past 255 objects',
  async write(dataset) {
    const { zip, notes } = await pngMasksExport(dataset);
    return { name: 'maskwright-session.masks.zip', bytes: zip, mime: 'application/zip', notes };
  },
  read: readPngMasks,
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
