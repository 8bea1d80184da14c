import type { Ring } from '../../engine/types';
import type { BoxGeometry } from '../annotation';
import { bridgeHoles } from '../polygon';
import { baseName, fileNameOf, jsonFilesWhere, mergeImported, textOf, type ImportedAnnotation, type ImportedCategory, type ImportedDataset, type InputFile } from './imported';
import type { DatasetCategory } from './categories';
import type { Dataset } from './dataset';
import { textEntry, writeZip } from './zip';
import type { DatasetFormat } from './format';

/**
 * LabelMe JSON (wkentaro/labelme's file: `shapes` of `shape_type` "polygon" with `points`, `label`,
 * `group_id`; `imagePath`, `imageHeight`, `imageWidth`, `imageData` null), one file per image in a
 * zip. A multi-part object is several shapes sharing a `group_id`, as LabelMe groups them; holes are
 * keyhole cuts. A box is a `rectangle` shape (two corners) and reads back as one; other shape types
 * (circle, line, point) are listed as not imported.
 * LabelMe files hold class names only; the zip's `labels.txt` (the file labelme's own labelme2coco
 * and labelme2voc take: `__ignore__` = -1, `_background_` = 0, then one class a line, line n = id
 * n) keeps every class id, a deleted id as `unused_<id>`, and the classes no shape uses.
 */
const round2 = (n: number) => Math.round(n * 100) / 100;

interface LabelmeShape {
  label: string;
  points: number[][];
  group_id: number | null;
  shape_type: string;
  flags: Record<string, boolean>;
  description?: string;
}

interface LabelmeFile {
  version: string;
  flags: Record<string, boolean>;
  shapes: LabelmeShape[];
  imagePath: string;
  imageData: null;
  imageHeight: number;
  imageWidth: number;
}

export function toLabelme(dataset: Dataset): Array<{ name: string; file: LabelmeFile }> {
  let group = 0;
  return dataset.images.map(({ image, objects }) => ({
    name: `${baseName(image.name)}.json`,
    file: {
      version: '5.4.1',
      flags: {},
      shapes: objects.flatMap(({ object, kind, categoryId, geometry }) => {
        const label = labelLine(dataset.categories.find((c) => c.id === categoryId)!.name);
        if (kind === 'box') {
          const [x, y, w, h] = geometry.bbox;
          return [{ label, points: [[x, y], [round2(x + w), round2(y + h)]], group_id: null, shape_type: 'rectangle', flags: {}, description: object.label }];
        }
        const groupId = geometry.polygons.length > 1 ? ++group : null;
        return geometry.polygons.map((p) => ({ label, points: bridgeHoles(p).map(([x, y]) => [x, y]), group_id: groupId, shape_type: 'polygon', flags: {}, description: object.label }));
      }),
      imagePath: fileNameOf(image.name),
      imageData: null,
      imageHeight: image.height,
      imageWidth: image.width,
    },
  }));
}

const IGNORE = '__ignore__';
const BACKGROUND = '_background_';
const UNUSED = /^unused_\d+$/;
/** A class name as one line of labels.txt (and so in the shapes too): line breaks and other controls would shift every id after it. */
const labelLine = (name: string) => name.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ');

/** labels.txt: line n (from 0 after `__ignore__`) names class id n; every id up to the highest has a line. */
export function labelsTxt(categories: readonly DatasetCategory[]): string {
  const count = categories.reduce((n, c) => Math.max(n, c.id), 0);
  const names = Array.from({ length: count }, (_, i) => labelLine(categories.find((c) => c.id === i + 1)?.name ?? `unused_${i + 1}`));
  return `${[IGNORE, BACKGROUND, ...names].join('\n')}\n`;
}

/** Whether a text file is a labelme labels.txt (a YOLO label line starts with a number, never with these). */
export function isLabelsTxt(file: InputFile): boolean {
  if (!/(^|\/)[^/]*\.txt$/i.test(file.name)) return false;
  const first = textOf(file).trimStart().split(/\r?\n/, 1)[0]?.trim();
  return first === IGNORE || first === BACKGROUND;
}

/** The classes of a labels.txt with their ids (the line numbers labelme gives them). */
export function readLabelsTxt(text: string): ImportedCategory[] {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  const idOfFirst = lines[0] === IGNORE ? -1 : 0;
  return lines.map((name, i) => ({ id: idOfFirst + i, name })).filter((c) => c.id > 0 && !UNUSED.test(c.name));
}

const isLabelme = (json: unknown): json is LabelmeFile => !!json && typeof json === 'object' && Array.isArray((json as LabelmeFile).shapes) && 'imagePath' in (json as object);

export function readLabelme(file: LabelmeFile): ImportedDataset {
  const fileName = fileNameOf(file.imagePath);
  // Shapes in file order, a group at its first shape's place.
  const groups = new Map<string, { className: string; label?: string; rings: Ring[]; box?: BoxGeometry }>();
  const skipped = new Map<string, number>();
  file.shapes.forEach((shape, i) => {
    const type = shape.shape_type ?? 'polygon';
    if (type === 'rectangle' && Array.isArray(shape.points) && shape.points.length === 2) {
      const [[x1, y1], [x2, y2]] = shape.points;
      const [left, top, right, bottom] = [Math.min(x1, x2), Math.min(y1, y2), Math.max(x1, x2), Math.max(y1, y2)];
      if (right > left && bottom > top) {
        groups.set(`box ${i}`, { className: shape.label || 'unlabelled', label: shape.description || undefined, rings: [], box: [left, top, round2(right - left), round2(bottom - top)] });
        return;
      }
    }
    if (type !== 'polygon' || !Array.isArray(shape.points) || shape.points.length < 3) {
      skipped.set(type, (skipped.get(type) ?? 0) + 1);
      return;
    }
    const key = shape.group_id != null ? `${shape.label}\u0000${shape.group_id}` : `single ${i}`;
    const g = groups.get(key) ?? { className: shape.label || 'unlabelled', label: shape.description || undefined, rings: [] };
    g.rings.push(shape.points.map(([x, y]) => [x, y]));
    groups.set(key, g);
  });
  const annotations: ImportedAnnotation[] = [...groups.values()].map((g) => ({ fileName, className: g.className, label: g.label, ...(g.box ? { box: g.box } : { rings: g.rings }) }));
  const problems = [...skipped].map(([kind, n]) => `${fileName}: ${n} ${kind} shape${n === 1 ? '' : 's'} not imported (only polygons and rectangles are read)`);
  return {
    format: 'labelme',
    images: [{ name: fileName, width: file.imageWidth, height: file.imageHeight }],
    categories: [],
    annotations,
    problems,
  };
}

export const labelmeFormat: DatasetFormat = {
  id: 'labelme',
  holds: { mask: true, box: true, tag: false },
  label: 'LabelMe JSON zip',
  summary: 'one LabelMe JSON per image: polygon shapes, parts grouped by group_id; boxes as rectangles',
  carriesImages: true,
  async write(dataset) {
    const entries = [textEntry('labels.txt', labelsTxt(dataset.categories)), ...toLabelme(dataset).map((f) => textEntry(f.name, JSON.stringify(f.file, null, 2)))];
    for (const e of dataset.images) if (e.bytes) entries.push({ name: fileNameOf(e.image.name), data: e.bytes });
    return { name: 'maskwright-session.labelme.zip', bytes: writeZip(entries), mime: 'application/zip' };
  },
  async read(files) {
    const found = jsonFilesWhere(files, isLabelme);
    if (found.length === 0) return undefined;
    const labels = files.find(isLabelsTxt);
    const read = mergeImported('labelme', found.map((x) => readLabelme(x.json)));
    return {
      dataset: labels ? { ...read, categories: readLabelsTxt(textOf(labels)) } : read,
      consumed: [...found.map((x) => x.file.name), ...(labels ? [labels.name] : [])],
    };
  },
};
