import { namesOnlyClassNotes, type Dataset } from './dataset';
import type { DatasetFormat } from './format';
import { fileNameOf, mergeImported, textOf, type ImportedAnnotation, type ImportedDataset, type InputFile } from './imported';
import { csvRecords } from './tagsCsv';

/**
 * Boxes as a CSV, the flat label file many detection tools and spreadsheets take: an
 * `image,class,x,y,w,h` header, then one row per object — the top-left corner and the size of its
 * box in image pixels (a mask as its box, as every detection format writes it). Fields are quoted
 * as RFC 4180 says when they hold a comma, a quote or a line break.
 */
export const BOXES_CSV_HEADER = ['image', 'class', 'x', 'y', 'w', 'h'] as const;

const quoted = (text: string) => (/[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text);
/** Two decimals: a hundredth of a pixel is below what any labeller draws. */
const pixels = (value: number) => String(Math.round(value * 100) / 100);

export function toBoxesCsv(dataset: Dataset): string {
  const names = new Map(dataset.categories.map((c) => [c.id, c.name]));
  const rows = dataset.images.flatMap((entry) =>
    entry.objects.map(({ object, categoryId, geometry }) => [quoted(fileNameOf(entry.image.name)), quoted(names.get(categoryId) ?? object.label), ...geometry.bbox.map(pixels)].join(',')),
  );
  return `${[BOXES_CSV_HEADER.join(','), ...rows].join('\r\n')}\r\n`;
}

const isBoxesHeader = (record: readonly string[]) => BOXES_CSV_HEADER.every((name, i) => record[i]?.trim().toLowerCase() === name);
const firstRecord = (text: string) => csvRecords(text.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0])[0] ?? [];

export function readBoxesCsv(name: string, text: string): ImportedDataset {
  const [, ...rows] = csvRecords(text.replace(/^\uFEFF/, ''));
  const annotations: ImportedAnnotation[] = [];
  const problems: string[] = [];
  rows.forEach((row, i) => {
    const [image = '', className = '', ...numbers] = row.map((v) => v.trim());
    const [x, y, w, h] = numbers.map((v) => (v === '' ? NaN : Number(v)));
    const where = `${fileNameOf(name)} row ${i + 2}`;
    if (!image || !className) problems.push(`${where}: needs an image and a class`);
    else if (![x, y, w, h].every(Number.isFinite)) problems.push(`${where}: x, y, w and h must be numbers`);
    else if (!(w > 0 && h > 0)) problems.push(`${where}: a box of no area`);
    else annotations.push({ fileName: fileNameOf(image), className, box: [x, y, w, h] });
  });
  const classes = [...new Set(annotations.map((a) => a.className))];
  return { format: 'boxes-csv', images: [], categories: classes.map((c) => ({ name: c })), annotations, problems };
}

export const boxesCsvFormat: DatasetFormat = {
  id: 'boxes-csv',
  label: 'Boxes CSV',
  summary: 'image,class,x,y,w,h: one row per object, its box in pixels (a mask as its box)',
  holds: { mask: true, box: true, tag: false },
  writesMasksAsBoxes: true,
  async write(dataset) {
    return { name: 'maskwright-session.boxes.csv', bytes: new TextEncoder().encode(toBoxesCsv(dataset)), mime: 'text/csv', notes: namesOnlyClassNotes('Boxes CSV', dataset) };
  },
  async read(files: readonly InputFile[]) {
    const found = files.filter((f) => /\.csv$/i.test(f.name) && isBoxesHeader(firstRecord(textOf(f))));
    if (found.length === 0) return undefined;
    return { dataset: mergeImported('boxes-csv', found.map((f) => readBoxesCsv(f.name, textOf(f)))), consumed: found.map((f) => f.name) };
  },
};
