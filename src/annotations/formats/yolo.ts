import { bridgeHoles } from '../polygon';
import type { DatasetCategory } from './categories';
import { baseName, fileNameOf, pairsToRing, textOf, type ImportedAnnotation, type ImportedCategory, type ImportedDataset, type InputFile } from './imported';
import { joinParts } from './joinParts';
import type { DatasetImage, Dataset } from './dataset';
import { textEntry, writeZip, type ZipEntry } from './zip';
import type { DatasetFormat } from './format';
import { isLabelsTxt } from './labelme';

/**
 * Ultralytics YOLO segmentation (docs.ultralytics.com/datasets/segment): `labels/<image>.txt`, one
 * line per instance, `class x1 y1 x2 y2 ...` normalised to [0, 1]; a multi-part object is one line,
 * its parts joined as Ultralytics' own COCO converter joins them (joinParts.ts), holes by keyhole
 * cuts. Class index = class id − 1, so the index is as stable as the id; `data.yaml` names every
 * index from 0 to nc − 1 (Ultralytics requires that), an id freed by a deleted class as `unused_<id>`.
 */
export const yoloIndexOf = (categoryId: number) => categoryId - 1;
const UNUSED = /^unused_\d+$/;

export function toYoloSeg(entry: DatasetImage): string {
  const { width, height } = entry.image;
  const lines = entry.objects.map(({ categoryId, geometry }) => {
    const ring = joinParts(geometry.polygons.map(bridgeHoles));
    const coords = ring.flatMap(([x, y]) => [(x / width).toFixed(6), (y / height).toFixed(6)]);
    return [yoloIndexOf(categoryId), ...coords].join(' ');
  });
  return lines.length ? `${lines.join('\n')}\n` : '';
}

const yamlString = (s: string) => JSON.stringify(s);

/** data.yaml: `names` as a map from class index (= id − 1) to name, every index up to nc − 1 present. */
export function dataYaml(categories: readonly DatasetCategory[], withImages: boolean): string {
  const count = categories.reduce((n, c) => Math.max(n, c.id), 0);
  const names = Array.from({ length: count }, (_, i) => categories.find((c) => c.id === i + 1)?.name ?? `unused_${i + 1}`);
  const lines = [
    '# Exported by Maskwright. Class index = the studio class id - 1 (ids never change, so a model trained on',
    '# an earlier export keeps its classes); an index whose class was deleted is named unused_<id>.',
    'path: .',
    `train: ${withImages ? 'images' : 'labels'}`,
    `val: ${withImages ? 'images' : 'labels'}`,
    `nc: ${count}`,
    'names:',
  ];
  names.forEach((name, i) => lines.push(`  ${i}: ${yamlString(name)}`));
  return `${lines.join('\n')}\n`;
}

export function yoloZip(dataset: Dataset, withImages: boolean): Uint8Array {
  const files: ZipEntry[] = [textEntry('data.yaml', dataYaml(dataset.categories, withImages))];
  for (const entry of dataset.images) {
    files.push(textEntry(`labels/${baseName(entry.image.name)}.txt`, toYoloSeg(entry)));
    if (withImages && entry.bytes) files.push({ name: `images/${fileNameOf(entry.image.name)}`, data: entry.bytes });
  }
  return writeZip(files);
}

/** The `names` of an Ultralytics data.yaml: a flow list, a block list, or an index → name map. */
export function readDataYamlNames(yaml: string): string[] {
  const unquote = (s: string) => {
    const t = s.trim();
    if (/^"/.test(t)) {
      try {
        return JSON.parse(t) as string;
      } catch {
        return t.slice(1, -1);
      }
    }
    return t.replace(/^'(.*)'$/, '$1');
  };
  const lines = yaml.split(/\r?\n/);
  const start = lines.findIndex((l) => /^names\s*:/.test(l));
  if (start < 0) throw new Error('data.yaml has no names');
  const inline = lines[start].replace(/^names\s*:/, '').trim();
  if (inline.startsWith('[')) return inline.slice(1, inline.lastIndexOf(']')).split(',').map(unquote).filter(Boolean);
  if (inline.startsWith('{')) {
    const names: string[] = [];
    for (const pair of inline.slice(1, inline.lastIndexOf('}')).split(',')) {
      const m = /^\s*(\d+)\s*:\s*(.*)$/.exec(pair);
      if (m) names[Number(m[1])] = unquote(m[2]);
    }
    return Array.from(names, (n, i) => n ?? `class ${i}`);
  }
  const names: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^\s*#/.test(line) || line.trim() === '') continue;
    if (!/^\s+\S/.test(line)) break;
    const item = line.trim();
    const indexed = /^(\d+)\s*:\s*(.*)$/.exec(item);
    if (indexed) names[Number(indexed[1])] = unquote(indexed[2]);
    else if (item.startsWith('- ')) names.push(unquote(item.slice(2)));
  }
  return Array.from(names, (n, i) => n ?? `class ${i}`);
}

/** YOLO segmentation label files (one per image, named after it), normalised coordinates. */
export function readYoloLabels(files: ReadonlyArray<{ name: string; text: string }>, names: readonly string[]): ImportedDataset {
  const annotations: ImportedAnnotation[] = [];
  const problems: string[] = [];
  for (const file of files) {
    const fileName = fileNameOf(file.name);
    file.text.split(/\r?\n/).forEach((line, i) => {
      const values = line.trim().split(/\s+/).filter(Boolean).map(Number);
      if (values.length === 0) return;
      const [classIndex, ...coords] = values;
      if (!Number.isInteger(classIndex) || coords.length < 6 || coords.length % 2 || coords.some((v) => !Number.isFinite(v))) {
        problems.push(`${fileName} line ${i + 1}: not a segmentation polygon`);
        return;
      }
      annotations.push({ fileName, className: names[classIndex] ?? `class ${classIndex}`, rings: [pairsToRing(coords)], normalised: true });
    });
  }
  const categories: ImportedCategory[] = names.map((name, index) => ({ id: index + 1, name })).filter((c) => !UNUSED.test(c.name));
  return { format: 'yolo', images: [], categories, annotations, problems };
}

/** The label files among a dataset's `.txt` files (not class lists, split lists, VOC's image sets or LabelMe's labels.txt). */
export const isYoloLabelFile = (file: InputFile) =>
  /\.txt$/i.test(file.name) && !/(^|\/)(classes|labelmap|train|val|test)\.txt$/i.test(file.name) && !/ImageSets\//.test(file.name) && !isLabelsTxt(file);
export const isDataYaml = (file: InputFile) => /(^|\/)data\.ya?ml$/i.test(file.name);

export const yoloFormat: DatasetFormat = {
  id: 'yolo',
  holds: { mask: true, box: false, tag: false },
  label: 'YOLO segmentation zip',
  summary: 'Ultralytics labels/*.txt (one polygon line per object) + data.yaml; the photos too if ticked; no boxes (YOLO detection holds them)',
  carriesImages: true,
  async write(dataset) {
    const withImages = dataset.images.some((e) => e.bytes);
    return { name: 'maskwright-session.yolo.zip', bytes: yoloZip(dataset, withImages), mime: 'application/zip' };
  },
  async read(files: readonly InputFile[]) {
    const labels = files.filter(isYoloLabelFile);
    if (labels.length === 0) return undefined;
    const yaml = files.find(isDataYaml);
    const read = readYoloLabels(labels.map((l) => ({ name: l.name, text: textOf(l) })), yaml ? readDataYamlNames(textOf(yaml)) : []);
    const problems = yaml ? read.problems : ['YOLO labels without data.yaml: class names unknown, classes named by index', ...read.problems];
    return { dataset: { ...read, problems }, consumed: [...labels, ...(yaml ? [yaml] : [])].map((f) => f.name) };
  },
};
