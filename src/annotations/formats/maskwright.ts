import type { PolygonWithHoles } from '../../engine/types';
import type { ImportedAnnotation, ImportedDataset } from './imported';
import { fileNameOf, jsonFilesWhere, mergeImported } from './imported';
import { reviewFrom } from '../review';
import type { ObjectReview } from '../annotation';
import { maskToRle, rleToMask, type CocoRle } from '../rle';
import type { Dataset } from './dataset';
import { jsonFile, type DatasetFormat } from './format';
import { isLearnedModel } from './learnedModelFile';
import type { LearnedClassesState } from '../../engine/learn/learnedClasses';

/**
 * The studio's own file: everything an object is (its exported outline with holes apart, its mask as
 * compressed COCO RLE, name, class, colour, visibility, confidence, where it came from, its review
 * state — `review: {state, source}`, absent for accepted objects made by hand; version 1 readers
 * that predate it read such objects as accepted) and every class with its id and colour, so
 * ours → ours loses nothing the studio holds.
 */
export const MASKWRIGHT_FORMAT = 'maskwright-dataset';

export interface MaskwrightFile {
  format: typeof MASKWRIGHT_FORMAT;
  version: 1;
  classes: Array<{ id: number; name: string; color: string }>;
  images: Array<{
    name: string;
    width: number;
    height: number;
    objects: Array<{
      label: string;
      classId: number | null;
      color: string;
      visible: boolean;
      confidence: number;
      source: string;
      polygons: PolygonWithHoles[];
      /** Every mask has one; a box has none. */
      mask?: CocoRle;
      kind?: 'box';
      box?: [number, number, number, number];
      review?: ObjectReview;
    }>;
  }>;
  /** The learned classes taught on these images (learnedModelFile.ts); absent: none. */
  learnedModel?: LearnedClassesState;
}

export function toMaskwright(dataset: Dataset): MaskwrightFile {
  const unlabelled = dataset.categories.find((c) => c.name === 'unlabelled' && !dataset.images.some((e) => e.objects.some((o) => o.object.classId === c.id)));
  return {
    format: MASKWRIGHT_FORMAT,
    version: 1,
    classes: dataset.categories.filter((c) => c !== unlabelled).map((c) => ({ id: c.id, name: c.name, color: c.color })),
    images: dataset.images.map(({ image, objects }) => ({
      name: fileNameOf(image.name),
      width: image.width,
      height: image.height,
      objects: objects.map(({ object, kind, categoryId, geometry }) => ({
        label: object.label,
        classId: categoryId === unlabelled?.id ? null : categoryId,
        color: object.color,
        visible: object.visible,
        confidence: object.confidence,
        source: object.source,
        ...(kind === 'box' ? { kind, box: geometry.bbox, polygons: [] } : { polygons: geometry.polygons, mask: maskToRle(geometry.mask, true) }),
        ...(object.review ? { review: object.review } : {}),
      })),
    })),
    ...(dataset.learnedModel ? { learnedModel: dataset.learnedModel } : {}),
  };
}

const isMaskwright = (json: unknown): json is MaskwrightFile => !!json && typeof json === 'object' && (json as MaskwrightFile).format === MASKWRIGHT_FORMAT;

export function readMaskwright(file: MaskwrightFile): ImportedDataset {
  if (file.version !== 1) throw new Error(`Maskwright dataset version ${String(file.version)} is not supported (1 is)`);
  const names = new Map(file.classes.map((c) => [c.id, c.name]));
  const annotations: ImportedAnnotation[] = [];
  const problems: string[] = [];
  for (const image of file.images) {
    image.objects.forEach((o, i) => {
      const shared = { fileName: fileNameOf(image.name), className: o.classId == null ? 'unlabelled' : (names.get(o.classId) ?? `class ${o.classId}`), label: o.label, color: o.color, visible: o.visible, score: o.confidence, review: o.review ? reviewFrom(o.review.state, o.review.source) : undefined };
      if (o.kind === 'box' && Array.isArray(o.box) && o.box.length === 4) {
        annotations.push({ ...shared, box: o.box });
        return;
      }
      try {
        annotations.push({ ...shared, mask: rleToMask(o.mask!) });
      } catch {
        if (o.polygons?.length) annotations.push({ ...shared, polygons: o.polygons });
        else problems.push(`${image.name} object ${i + 1}: neither its mask nor its polygons can be read`);
      }
    });
  }
  const learnedModel = file.learnedModel === undefined || isLearnedModel(file.learnedModel) ? file.learnedModel : undefined;
  if (file.learnedModel !== undefined && !learnedModel) problems.push('the learned model in the file is not one this studio reads: left out');
  return { format: 'maskwright', images: file.images.map((i) => ({ name: i.name, width: i.width, height: i.height })), categories: file.classes, annotations, problems, ...(learnedModel ? { learnedModel } : {}) };
}

export const maskwrightFormat: DatasetFormat = {
  id: 'maskwright',
  holds: { mask: true, box: true, tag: false },
  holdsReview: true,
  holdsLearnedModel: true,
  label: 'Maskwright dataset JSON',
  summary: 'everything the studio keeps: classes with ids and colours, each object’s mask, outline, name, visibility',
  async write(dataset) {
    return jsonFile('maskwright-session.maskwright.json', toMaskwright(dataset));
  },
  async read(files) {
    const found = jsonFilesWhere(files, isMaskwright);
    if (found.length === 0) return undefined;
    return { dataset: mergeImported('maskwright', found.map((x) => readMaskwright(x.json))), consumed: found.map((x) => x.file.name) };
  },
};
