import { namesOnlyClassNotes, type Dataset } from './dataset';
import type { DatasetFormat } from './format';
import { fileNameOf, textOf, type ImportedAnnotation, type ImportedDataset, type InputFile } from './imported';

/**
 * Image tags as a CSV (a classification dataset's usual label file): a `file_name,class` header,
 * then one row per tag, so an image with two tags has two rows and an untagged image none. Fields
 * are quoted as RFC 4180 says when they hold a comma, a quote or a line break.
 */
export const TAGS_CSV_HEADER = 'file_name,class';

const field = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);

export function toTagsCsv(dataset: Dataset): string {
  const names = new Map(dataset.categories.map((c) => [c.id, c.name]));
  const rows = dataset.images.flatMap((e) => (e.tags ?? []).map((t) => `${field(e.image.name)},${field(names.get(t.categoryId) ?? t.object.label)}`));
  return `${[TAGS_CSV_HEADER, ...rows].join('\r\n')}\r\n`;
}

/** RFC 4180 records: quoted fields may hold commas, doubled quotes and line breaks. */
export function csvRecords(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let value = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (value += '"'), i++;
      else if (c === '"') quoted = false;
      else value += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') record.push(value), (value = '');
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      record.push(value);
      records.push(record);
      (record = []), (value = '');
    } else value += c;
  }
  if (value !== '' || record.length) records.push([...record, value]);
  return records.filter((r) => r.some((v) => v.trim() !== ''));
}

const isHeader = (record: readonly string[]) => record.length >= 2 && record[0].trim().toLowerCase() === 'file_name' && record[1].trim().toLowerCase() === 'class';

export function readTagsCsv(name: string, text: string): ImportedDataset {
  const [, ...rows] = csvRecords(text.replace(/^\uFEFF/, ''));
  const annotations: ImportedAnnotation[] = [];
  const problems: string[] = [];
  rows.forEach((row, i) => {
    const [fileName = '', className = ''] = row.map((v) => v.trim());
    if (!fileName || !className) problems.push(`${fileNameOf(name)} row ${i + 2}: needs a file name and a class`);
    else annotations.push({ fileName: fileNameOf(fileName), className, tag: true });
  });
  const classes = [...new Set(annotations.map((a) => a.className))];
  return { format: 'tags-csv', images: [], categories: classes.map((c) => ({ name: c })), annotations, problems };
}

export const tagsCsvFormat: DatasetFormat = {
  id: 'tags-csv',
  label: 'Image tags CSV',
  summary: 'file_name,class: one row per image tag (classification datasets)',
  holds: { mask: false, box: false, tag: true },
  async write(dataset) {
    return { name: 'maskwright-session.tags.csv', bytes: new TextEncoder().encode(toTagsCsv(dataset)), mime: 'text/csv', notes: namesOnlyClassNotes('Image tags CSV', dataset) };
  },
  async read(files: readonly InputFile[]) {
    const found = files.filter((f) => /\.csv$/i.test(f.name)).map((file) => ({ file, text: textOf(file) })).filter(({ text }) => isHeader(csvRecords(text.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0])[0] ?? []));
    if (found.length === 0) return undefined;
    const parts = found.map(({ file, text }) => readTagsCsv(file.name, text));
    return {
      dataset: { format: 'tags-csv', images: [], categories: parts.flatMap((p) => p.categories), annotations: parts.flatMap((p) => p.annotations), problems: parts.flatMap((p) => p.problems) },
      consumed: found.map(({ file }) => file.name),
    };
  },
};
