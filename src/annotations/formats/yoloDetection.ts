import { baseName, fileNameOf, textOf, type ImportedAnnotation, type ImportedCategory, type ImportedDataset, type InputFile } from './imported';
import type { Dataset, DatasetImage } from './dataset';
import { textEntry, writeZip, type ZipEntry } from './zip';
import type { DatasetFormat } from './format';
import { dataYaml, isDataYaml, isYoloLabelFile, readDataYamlNames, yoloIndexOf } from './yolo';

/**
 * Ultralytics YOLO detection (docs.ultralytics.com/datasets/detect): `labels/<image>.txt`, one line
 * per object, `class cx cy w h` — the box's centre and size normalised to [0, 1] by the image's
 * width and height — and the same `data.yaml` as YOLO segmentation (names by index = class id − 1).
 * A box is written as it is and a mask as its box, the box of its exported outline. Reading, a
 * label file whose every line has five numbers is a detection file and each line a box.
 */
const DIGITS = 6;

export function toYoloDetection(entry: DatasetImage): string {
  const { width, height } = entry.image;
  const lines = entry.objects.map(({ categoryId, geometry }) => {
    const [x, y, w, h] = geometry.bbox;
    const values = [(x + w / 2) / width, (y + h / 2) / height, w / width, h / height].map((v) => Math.min(1, Math.max(0, v)).toFixed(DIGITS));
    return [yoloIndexOf(categoryId), ...values].join(' ');
  });
  return lines.length ? `${lines.join('\n')}\n` : '';
}

export function yoloDetectionZip(dataset: Dataset, withImages: boolean): Uint8Array {
  const files: ZipEntry[] = [textEntry('data.yaml', dataYaml(dataset.categories, withImages))];
  for (const entry of dataset.images) {
    files.push(textEntry(`labels/${baseName(entry.image.name)}.txt`, toYoloDetection(entry)));
    if (withImages && entry.bytes) files.push({ name: `images/${entry.image.name}`, data: entry.bytes });
  }
  return writeZip(files);
}

const linesOf = (text: string) => text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
const isBoxLine = (line: string) => {
  const values = line.split(/\s+/).map(Number);
  return values.length === 5 && values.every(Number.isFinite) && Number.isInteger(values[0]);
};

/** Detection label files: boxes, normalised, scaled when the image is known. */
export function readYoloDetectionLabels(files: ReadonlyArray<{ name: string; text: string }>, names: readonly string[]): ImportedDataset {
  const annotations: ImportedAnnotation[] = [];
  const problems: string[] = [];
  for (const file of files) {
    const fileName = fileNameOf(file.name);
    linesOf(file.text).forEach((line, i) => {
      const [classIndex, cx, cy, w, h] = line.split(/\s+/).map(Number);
      if (!(w > 0 && h > 0)) {
        problems.push(`${fileName} line ${i + 1}: a box of no area`);
        return;
      }
      annotations.push({ fileName, className: names[classIndex] ?? `class ${classIndex}`, box: [cx - w / 2, cy - h / 2, w, h], normalised: true });
    });
  }
  const categories: ImportedCategory[] = names.map((name, index) => ({ id: index + 1, name })).filter((c) => !/^unused_\d+$/.test(c.name));
  return { format: 'yolo-detection', images: [], categories, annotations, problems };
}

export const yoloDetectionFormat: DatasetFormat = {
  id: 'yolo-detection',
  holds: { mask: true, box: true, tag: false },
  writesMasksAsBoxes: true,
  label: 'YOLO detection zip',
  summary: 'Ultralytics labels/*.txt (class cx cy w h per object; a mask as its box) + data.yaml; the photos too if ticked',
  carriesImages: true,
  async write(dataset) {
    const withImages = dataset.images.some((e) => e.bytes);
    return { name: 'maskwright-session.yolo-detection.zip', bytes: yoloDetectionZip(dataset, withImages), mime: 'application/zip' };
  },
  async read(files: readonly InputFile[]) {
    const labels = files.filter(isYoloLabelFile).map((file) => ({ file, lines: linesOf(textOf(file)) }));
    const detection = labels.filter((l) => l.lines.length > 0 && l.lines.every(isBoxLine));
    if (detection.length === 0) return undefined;
    // Empty label files (images without objects) and data.yaml are this dataset's when no label file is of another kind.
    const alone = labels.every((l) => l.lines.length === 0 || l.lines.every(isBoxLine));
    const yaml = files.find(isDataYaml);
    const read = readYoloDetectionLabels(detection.map((l) => ({ name: l.file.name, text: textOf(l.file) })), yaml ? readDataYamlNames(textOf(yaml)) : []);
    const problems = yaml ? read.problems : ['YOLO labels without data.yaml: class names unknown, classes named by index', ...read.problems];
    const consumed = alone ? [...labels.map((l) => l.file), ...(yaml ? [yaml] : [])] : detection.map((l) => l.file);
    return { dataset: { ...read, problems }, consumed: consumed.map((f) => f.name) };
  },
};
