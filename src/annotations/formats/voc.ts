import type { BinaryMask } from '../../engine/types';
import { baseName, fileNameOf, textOf, type ImportedAnnotation, type ImportedCategory, type ImportedDataset, type InputFile } from './imported';
import { decodePng } from './png';
import type { Dataset } from './dataset';
import { renamedClassNotes } from './categories';
import { textEntry, writeZip, type ZipEntry } from './zip';
import { childNamed, childrenNamed, childText, escapeXml, parseXml, type XmlElement } from './xml';
import { instanceIndexMask, lostPixelNotes, maskPng, notesEntry, semanticMask } from './pngMasks';
import type { DatasetFormat } from './format';

/**
 * Pascal VOC segmentation layout (the VOC2012 devkit): `Annotations/<image>.xml` (objects with name
 * and 1-based pixel `bndbox`), `SegmentationObject/<image>.png` (value n = the n-th object of the
 * XML), `SegmentationClass/<image>.png` (value = class index), both palette PNGs in VOC's colour map,
 * 255 = "void"; `ImageSets/Segmentation/train.txt`; `labelmap.txt` (Datumaro's, `name:r,g,b::`) names
 * the class indices, which are the studio's class ids. One pixel has one owner: objects are painted
 * largest first (pngMasks.ts, `paintingOrder`), so one nested in or overlapping a bigger one keeps
 * its pixels, and each object that still loses some is named in the export's notes (NOTES.md). Past
 * 254 objects (255 is void) or class ids, the PNG is 16-bit grayscale instead of the palette.
 * A box is an object of the XML (its `bndbox`) with no pixel in the PNGs; reading, an object without
 * pixels — and every object of a detection dataset, XML without PNGs — is a box.
 */
export function vocColormap(): Uint8Array {
  const map = new Uint8Array(256 * 3);
  for (let i = 0; i < 256; i++) {
    let r = 0;
    let g = 0;
    let b = 0;
    let c = i;
    for (let j = 0; j < 8; j++) {
      r |= ((c >> 0) & 1) << (7 - j);
      g |= ((c >> 1) & 1) << (7 - j);
      b |= ((c >> 2) & 1) << (7 - j);
      c >>= 3;
    }
    map.set([r, g, b], i * 3);
  }
  return map;
}

const VOID = 255;

/**
 * A class name as VOC writes it, in the XML and in labelmap.txt alike: a line break or another
 * control would split labelmap.txt's line and shift every class id after it; `:` ends the name there.
 */
export const vocClassName = (name: string) => name.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ').replace(/:/g, '_').replace(/[\ufffe\uffff]/g, '\ufffd');
/** VOC's own 20 classes, by index: the names of a file without labelmap.txt. */
const VOC_CLASSES = ['background', 'aeroplane', 'bicycle', 'bird', 'boat', 'bottle', 'bus', 'car', 'cat', 'chair', 'cow', 'diningtable', 'dog', 'horse', 'motorbike', 'person', 'pottedplant', 'sheep', 'sofa', 'train', 'tvmonitor'];

function annotationXml(entry: Dataset['images'][number], dataset: Dataset): string {
  const { image, objects } = entry;
  const lines = ['<annotation>', '  <folder>Maskwright</folder>', `  <filename>${escapeXml(fileNameOf(image.name))}</filename>`, '  <size>', `    <width>${image.width}</width>`, `    <height>${image.height}</height>`, '    <depth>3</depth>', '  </size>', '  <segmented>1</segmented>'];
  for (const { categoryId, geometry } of objects) {
    const [x, y, w, h] = geometry.bbox;
    const box = [Math.floor(x) + 1, Math.floor(y) + 1, Math.ceil(x + w), Math.ceil(y + h)];
    const truncated = x <= 0 || y <= 0 || x + w >= image.width || y + h >= image.height ? 1 : 0;
    lines.push(
      '  <object>',
      `    <name>${escapeXml(vocClassName(dataset.categories.find((c) => c.id === categoryId)!.name))}</name>`,
      '    <pose>Unspecified</pose>',
      `    <truncated>${truncated}</truncated>`,
      '    <difficult>0</difficult>',
      `    <bndbox><xmin>${box[0]}</xmin><ymin>${box[1]}</ymin><xmax>${box[2]}</xmax><ymax>${box[3]}</ymax></bndbox>`,
      '  </object>',
    );
  }
  lines.push('</annotation>', '');
  return lines.join('\n');
}

export function labelmap(dataset: Dataset): string {
  const colours = vocColormap();
  const count = dataset.categories.reduce((n, c) => Math.max(n, c.id), 0);
  const lines = ['# label:color_rgb:parts:actions', 'background:0,0,0::'];
  for (let id = 1; id <= count; id++) lines.push(`${vocClassName(dataset.categories.find((c) => c.id === id)?.name ?? `unused_${id}`)}:${colours.slice(id * 3, id * 3 + 3).join(',')}::`);
  return `${lines.join('\n')}\n`;
}

/** The most palette indices a VOC mask uses for objects or classes: 255 is "void". */
const PALETTE_MAX = VOID - 1;

export async function vocExport(dataset: Dataset): Promise<{ zip: Uint8Array; notes: string[] }> {
  const palette = vocColormap();
  const files: ZipEntry[] = [textEntry('labelmap.txt', labelmap(dataset))];
  const notes = renamedClassNotes('Pascal VOC zip', dataset.categories.map((c) => c.name), vocClassName);
  for (const entry of dataset.images) {
    const { image } = entry;
    const base = baseName(image.name);
    files.push(textEntry(`Annotations/${base}.xml`, annotationXml(entry, dataset)));
    const instanceValues = instanceIndexMask(entry);
    const objects = await maskPng(image.width, image.height, instanceValues, PALETTE_MAX, palette);
    const classes = await maskPng(image.width, image.height, semanticMask(entry, instanceValues), PALETTE_MAX, palette);
    if (objects.bitDepth === 16) notes.push(`${image.name}: ${entry.objects.length} objects, more than VOC's palette holds (254): SegmentationObject/${base}.png is 16-bit grayscale (value n = the n-th object of the XML)`);
    if (classes.bitDepth === 16) notes.push(`${image.name}: class ids above 254: SegmentationClass/${base}.png is 16-bit grayscale (value = class id)`);
    notes.push(...lostPixelNotes(entry, instanceValues, dataset));
    files.push({ name: `SegmentationObject/${base}.png`, data: objects.png });
    files.push({ name: `SegmentationClass/${base}.png`, data: classes.png });
    if (entry.bytes) files.push({ name: `JPEGImages/${fileNameOf(image.name)}`, data: entry.bytes });
  }
  files.push(textEntry('ImageSets/Segmentation/train.txt', `${dataset.images.map((e) => baseName(e.image.name)).join('\n')}\n`));
  return { zip: writeZip([...files, ...notesEntry('Pascal VOC', notes)]), notes };
}

export async function vocZip(dataset: Dataset): Promise<Uint8Array> {
  return (await vocExport(dataset)).zip;
}

/**
 * Palette indices of a VOC mask PNG: indexed and gray PNGs as they are (16-bit ones too, where 255
 * is an index like any other), RGB ones through the colour map.
 */
async function indicesOf(file: InputFile): Promise<{ width: number; height: number; index: ArrayLike<number>; voidValue?: number }> {
  const png = await decodePng(file.bytes);
  if (png.channels === 1) return { width: png.width, height: png.height, index: png.samples16 ?? png.pixels, voidValue: png.samples16 ? undefined : VOID };
  const colours = vocColormap();
  const byColour = new Map<number, number>();
  for (let i = 0; i < 256; i++) byColour.set((colours[i * 3] << 16) | (colours[i * 3 + 1] << 8) | colours[i * 3 + 2], i);
  const index = new Uint8Array(png.width * png.height);
  for (let p = 0; p < index.length; p++) {
    const o = p * png.channels;
    index[p] = byColour.get((png.pixels[o] << 16) | (png.pixels[o + 1] << 8) | png.pixels[o + 2]) ?? VOID;
  }
  return { width: png.width, height: png.height, index, voidValue: VOID };
}

function maskWhere(width: number, height: number, index: ArrayLike<number>, value: number): BinaryMask {
  const data = new Uint8Array(width * height);
  for (let i = 0; i < data.length; i++) if (index[i] === value) data[i] = 1;
  return { width, height, data };
}

/** VOC's `bndbox` (1-based, both ends inside) as `[x, y, width, height]` in pixels; null when it is not a box. */
function bndbox(object: XmlElement): [number, number, number, number] | null {
  const element = childNamed(object, 'bndbox');
  if (!element) return null;
  const [xmin, ymin, xmax, ymax] = ['xmin', 'ymin', 'xmax', 'ymax'].map((k) => Number(childText(element, k)));
  if (![xmin, ymin, xmax, ymax].every(Number.isFinite) || xmax < xmin || ymax < ymin) return null;
  return [xmin - 1, ymin - 1, xmax - xmin + 1, ymax - ymin + 1];
}

function boxOrProblem(fileName: string, object: XmlElement, index: number, annotations: ImportedAnnotation[], problems: string[]) {
  const className = childText(object, 'name') || 'unlabelled';
  const box = bndbox(object);
  if (box) annotations.push({ fileName, className, box });
  else problems.push(`${fileName}: object ${index + 1} (${className}) has neither pixels in SegmentationObject nor a bndbox`);
}

export async function readVoc(files: readonly InputFile[]): Promise<{ dataset: ImportedDataset; consumed: string[] } | undefined> {
  const xmls = files.filter((f) => /(^|\/)Annotations\/[^/]+\.xml$/i.test(f.name));
  const objectPngs = files.filter((f) => /(^|\/)SegmentationObject\/[^/]+\.png$/i.test(f.name));
  const classPngs = files.filter((f) => /(^|\/)SegmentationClass\/[^/]+\.png$/i.test(f.name));
  if (xmls.length === 0 && classPngs.length === 0) return undefined;
  const map = files.find((f) => /(^|\/)labelmap\.txt$/i.test(f.name));
  const names = map
    ? textOf(map)
        .split(/\r?\n/)
        .filter((l) => l.trim() && !l.startsWith('#'))
        .map((l) => l.split(':')[0])
    : VOC_CLASSES;
  const categories: ImportedCategory[] = names.map((name, id) => ({ id, name })).filter((c) => c.id > 0 && !/^unused_\d+$/.test(c.name));
  const annotations: ImportedAnnotation[] = [];
  const problems: string[] = [];
  const byBase = (list: readonly InputFile[], base: string) => list.find((f) => baseName(f.name) === base);
  const images: ImportedDataset['images'][number][] = [];
  const bases = new Set([...xmls, ...classPngs].map((f) => baseName(f.name)));
  for (const base of bases) {
    const xmlFile = byBase(xmls, base);
    const xml = xmlFile ? parseXml(textOf(xmlFile)) : undefined;
    const fileName = (xml && childText(xml, 'filename')) || `${base}.jpg`;
    const size = xml && childNamed(xml, 'size');
    images.push({ name: fileNameOf(fileName), width: Number(size && childText(size, 'width')), height: Number(size && childText(size, 'height')) });
    const objects = xml ? childrenNamed(xml, 'object') : [];
    const objectPng = byBase(objectPngs, base);
    if (objectPng) {
      const { width, height, index } = await indicesOf(objectPng);
      objects.forEach((o, i) => {
        const mask = maskWhere(width, height, index, i + 1);
        if (mask.data.some((v) => v)) annotations.push({ fileName, className: childText(o, 'name') || 'unlabelled', mask });
        else boxOrProblem(fileName, o, i, annotations, problems);
      });
    } else {
      const classPng = byBase(classPngs, base);
      if (classPng) {
        // Without instances, each class region is one object.
        const { width, height, index, voidValue } = await indicesOf(classPng);
        for (const value of new Set(Array.from(index))) {
          if (value === 0 || value === voidValue) continue;
          annotations.push({ fileName, className: names[value] ?? `class ${value}`, mask: maskWhere(width, height, index, value) });
        }
        problems.push(`${fileName}: no SegmentationObject PNG; each class region of SegmentationClass became one object`);
      } else objects.forEach((o, i) => boxOrProblem(fileName, o, i, annotations, problems));
    }
  }
  const consumed = [...xmls, ...objectPngs, ...classPngs, ...(map ? [map] : [])].map((f) => f.name);
  return { dataset: { format: 'voc', images, categories, annotations, problems }, consumed };
}

export const vocFormat: DatasetFormat = {
  id: 'voc',
  holds: { mask: true, box: true, tag: false },
  label: 'Pascal VOC zip',
  summary: 'Annotations XML (boxes as bndbox) + SegmentationObject / SegmentationClass palette PNGs, labelmap.txt',
  carriesImages: true,
  async write(dataset) {
    const { zip, notes } = await vocExport(dataset);
    return { name: 'maskwright-session.voc.zip', bytes: zip, mime: 'application/zip', notes };
  },
  read: readVoc,
};
