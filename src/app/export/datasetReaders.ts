import type { Ring, Vertex } from '../../engine/types';
import type { ImportedAnnotation } from './importAnnotations';
import { readZip } from './zip';

/** Readers of dataset files into ImportedAnnotation: COCO instances JSON, YOLO segmentation (+ data.yaml). */

function pairsToRing(flat: readonly number[]): Ring {
  const ring: Ring = [];
  for (let i = 0; i + 1 < flat.length; i += 2) ring.push([flat[i], flat[i + 1]] as Vertex);
  return ring;
}

/** COCO's uncompressed RLE: run lengths, alternating 0/1 from 0, column-major. */
function rleToMask(counts: readonly number[], height: number, width: number) {
  const columnMajor = new Uint8Array(width * height);
  let at = 0;
  counts.forEach((run, i) => {
    if (i % 2 === 1) columnMajor.fill(1, at, at + run);
    at += run;
  });
  const data = new Uint8Array(width * height);
  for (let x = 0; x < width; x++) for (let y = 0; y < height; y++) data[y * width + x] = columnMajor[x * height + y];
  return { width, height, data };
}

interface CocoLike {
  images?: Array<{ id: number; file_name: string }>;
  annotations?: Array<{ image_id: number; category_id: number; segmentation?: unknown; score?: number }>;
  categories?: Array<{ id: number; name: string }>;
}

export function readCoco(json: unknown): { annotations: ImportedAnnotation[]; problems: string[] } {
  const data = json as CocoLike;
  if (!data || !Array.isArray(data.images) || !Array.isArray(data.annotations)) throw new Error('not a COCO instances file (images and annotations lists missing)');
  const images = new Map(data.images.map((i) => [i.id, i.file_name]));
  const categories = new Map((data.categories ?? []).map((c) => [c.id, c.name]));
  const annotations: ImportedAnnotation[] = [];
  const problems: string[] = [];
  data.annotations.forEach((a, index) => {
    const fileName = images.get(a.image_id);
    const className = categories.get(a.category_id) ?? `category ${a.category_id}`;
    const segmentation = a.segmentation as number[][] | { counts: unknown; size: [number, number] } | undefined;
    if (!fileName) problems.push(`annotation ${index + 1}: image id ${a.image_id} is not listed`);
    else if (Array.isArray(segmentation)) annotations.push({ fileName, className, rings: segmentation.map(pairsToRing), score: a.score });
    else if (segmentation && Array.isArray(segmentation.counts)) annotations.push({ fileName, className, mask: rleToMask(segmentation.counts as number[], segmentation.size[0], segmentation.size[1]), score: a.score });
    else problems.push(`annotation ${index + 1} on ${fileName}: compressed RLE segmentation is not supported`);
  });
  return { annotations, problems };
}

/** The `names` of an Ultralytics data.yaml: a flow list, a block list, or an index → name map. */
export function readDataYamlNames(yaml: string): string[] {
  const unquote = (s: string) => s.trim().replace(/^(['"])(.*)\1$/, '$2');
  const lines = yaml.split(/\r?\n/);
  const start = lines.findIndex((l) => /^names\s*:/.test(l));
  if (start < 0) throw new Error('data.yaml has no names');
  const inline = lines[start].replace(/^names\s*:/, '').trim();
  if (inline.startsWith('[')) return inline.slice(1, inline.lastIndexOf(']')).split(',').map(unquote).filter(Boolean);
  const names: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (!/^\s+\S/.test(line)) break;
    const item = line.trim();
    const indexed = /^(\d+)\s*:\s*(.*)$/.exec(item);
    if (indexed) names[Number(indexed[1])] = unquote(indexed[2]);
    else if (item.startsWith('- ')) names.push(unquote(item.slice(2)));
  }
  return Array.from(names, (n, i) => n ?? `class ${i}`);
}

/** YOLO segmentation label files (one per image, named after it), normalised coordinates. */
export function readYoloLabels(files: ReadonlyArray<{ name: string; text: string }>, names: readonly string[]): { annotations: ImportedAnnotation[]; problems: string[] } {
  const annotations: ImportedAnnotation[] = [];
  const problems: string[] = [];
  for (const file of files) {
    const fileName = file.name.split('/').pop()!;
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
  return { annotations, problems };
}

const decoder = new TextDecoder();

/** What the user picked: a COCO .json, a YOLO .zip, or data.yaml with its label .txt files. */
export async function readDatasetFiles(files: ReadonlyArray<{ name: string; bytes: Uint8Array }>): Promise<{ annotations: ImportedAnnotation[]; problems: string[] }> {
  const expanded: Array<{ name: string; bytes: Uint8Array }> = [];
  for (const f of files) {
    if (/\.zip$/i.test(f.name)) for (const e of await readZip(f.bytes)) expanded.push({ name: e.name, bytes: e.data });
    else expanded.push(f);
  }
  const annotations: ImportedAnnotation[] = [];
  const problems: string[] = [];
  const merge = (r: { annotations: ImportedAnnotation[]; problems: string[] }) => {
    annotations.push(...r.annotations);
    problems.push(...r.problems);
  };
  for (const f of expanded.filter((e) => /\.json$/i.test(e.name) && !/legend\.json$/i.test(e.name))) merge(readCoco(JSON.parse(decoder.decode(f.bytes))));
  const labels = expanded.filter((e) => /\.txt$/i.test(e.name) && !/classes\.txt$/i.test(e.name));
  if (labels.length) {
    const yaml = expanded.find((e) => /(^|\/)data\.ya?ml$/i.test(e.name));
    if (!yaml) problems.push('YOLO labels without data.yaml: class names unknown, classes named by index');
    merge(readYoloLabels(labels.map((l) => ({ name: l.name, text: decoder.decode(l.bytes) })), yaml ? readDataYamlNames(decoder.decode(yaml.bytes)) : []));
  }
  if (annotations.length === 0 && problems.length === 0) problems.push('no COCO JSON or YOLO labels found in the chosen files');
  return { annotations, problems };
}
