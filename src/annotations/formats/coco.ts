import { bridgeHoles, flattenRing } from '../polygon';
import type { ImportedAnnotation, ImportedCategory, ImportedDataset } from './imported';
import { fileNameOf, jsonFilesWhere, mergeImported, pairsToRing } from './imported';
import { reviewFrom } from '../review';
import type { ProposalSource, ReviewState } from '../annotation';
import { reviewStateOf } from '../review';
import { maskToRle, rleToMask, type CocoRle } from '../rle';
import type { Dataset } from './dataset';
import { jsonFile, type DatasetFormat } from './format';

/**
 * COCO "instances" JSON (cocodataset.org/#format-data), read the way pycocotools reads it.
 * One annotation per object: several polygons for a multi-part object, each hole joined to its
 * outer ring by a keyhole cut (COCO polygons have no holes; see bridgeHoles), or — with the
 * "holes as RLE" option — a compressed RLE mask for objects with holes. `bbox` is the polygons' box
 * and `area` their pixel count (objectGeometry.ts). A box is a detection: its `bbox`, `"segmentation": []`
 * and `area` = width × height; reading, an annotation with no segmentation but a bbox is a box. What COCO has no key for (the detector's
 * confidence, the object's own name, colour and visibility, its review state) is kept under
 * `attributes`, the key CVAT and Datumaro use for per-annotation extras, as flat scalar values:
 * `review_state` ("accepted" or "proposed": proposals are written only when asked) and
 * `review_source` (what proposed it: "text-prompt", "find-similar", "segment-everything", "import", "learned";
 * absent for objects made by hand). Categories carry the class colour as `color`.
 */
export interface CocoAnnotation {
  id: number;
  image_id: number;
  category_id: number;
  segmentation: number[][] | CocoRle;
  area: number;
  bbox: [number, number, number, number];
  iscrowd: 0 | 1;
  attributes?: { score?: number; label?: string; color?: string; visible?: boolean; review_state?: ReviewState; review_source?: ProposalSource; [key: string]: unknown };
}

export interface CocoDataset {
  info: { description: string; version: string; year: number; date_created: string };
  licenses: [];
  images: Array<{ id: number; file_name: string; width: number; height: number }>;
  annotations: CocoAnnotation[];
  categories: Array<{ id: number; name: string; supercategory: string; color?: string }>;
}

export interface CocoOptions {
  /** Objects with holes as compressed RLE masks instead of keyhole-cut polygons. */
  readonly rleForHoles: boolean;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

export function toCoco(dataset: Dataset, options: CocoOptions = { rleForHoles: false }, now = new Date()): CocoDataset {
  const coco: CocoDataset = {
    info: { description: 'Exported by Maskwright', version: '1.0', year: now.getUTCFullYear(), date_created: now.toISOString() },
    licenses: [],
    images: [],
    annotations: [],
    categories: dataset.categories.map((c) => ({ id: c.id, name: c.name, supercategory: 'object', color: c.color })),
  };
  dataset.images.forEach((entry, imageIndex) => {
    const imageId = imageIndex + 1;
    coco.images.push({ id: imageId, file_name: fileNameOf(entry.image.name), width: entry.image.width, height: entry.image.height });
    for (const { object, kind, categoryId, geometry } of entry.objects) {
      const hasHoles = geometry.polygons.some((p) => p.holes.length > 0);
      const isBox = kind === 'box';
      coco.annotations.push({
        id: coco.annotations.length + 1,
        image_id: imageId,
        category_id: categoryId,
        // A box is a detection: its bbox, no outline (pycocotools reads `[]` as no segmentation).
        segmentation: isBox ? [] : options.rleForHoles && hasHoles ? maskToRle(geometry.mask, true) : geometry.polygons.map((p) => flattenRing(bridgeHoles(p))),
        area: geometry.area,
        bbox: geometry.bbox,
        iscrowd: 0,
        attributes: {
          score: round2(object.confidence),
          label: object.label,
          color: object.color,
          visible: object.visible,
          review_state: reviewStateOf(object),
          ...(object.review?.source ? { review_source: object.review.source } : {}),
        },
      });
    }
  });
  return coco;
}

interface CocoLike {
  images?: Array<{ id: number; file_name: string; width?: number; height?: number }>;
  annotations?: Array<{ image_id: number; category_id: number; segmentation?: unknown; bbox?: unknown; score?: number; attributes?: Record<string, unknown> }>;
  categories?: Array<{ id: number; name: string; color?: string }>;
}

export const isCoco = (json: unknown): json is CocoLike =>
  !!json && typeof json === 'object' && Array.isArray((json as CocoLike).images) && Array.isArray((json as CocoLike).annotations);

const isRle = (s: unknown): s is CocoRle =>
  !!s && typeof s === 'object' && Array.isArray((s as CocoRle).size) && (typeof (s as CocoRle).counts === 'string' || Array.isArray((s as CocoRle).counts));

const isBbox = (b: unknown): b is [number, number, number, number] => Array.isArray(b) && b.length === 4 && b.every((v) => typeof v === 'number' && Number.isFinite(v)) && b[2] > 0 && b[3] > 0;

/** A COCO instances file (a detection file, bboxes without segmentation, reads as boxes): polygons, uncompressed and compressed RLE, any category ids. */
export function readCoco(json: unknown): ImportedDataset {
  if (!isCoco(json)) throw new Error('not a COCO instances file (images and annotations lists missing)');
  const images = new Map(json.images!.map((i) => [i.id, i]));
  const categoryList: ImportedCategory[] = (json.categories ?? []).map((c) => ({ id: c.id, name: c.name, color: typeof c.color === 'string' ? c.color : undefined }));
  const categories = new Map(categoryList.map((c) => [c.id, c.name]));
  const annotations: ImportedAnnotation[] = [];
  const problems: string[] = [];
  json.annotations!.forEach((a, index) => {
    const image = images.get(a.image_id);
    if (!image) {
      problems.push(`annotation ${index + 1}: image id ${a.image_id} is not listed`);
      return;
    }
    const fileName = fileNameOf(image.file_name);
    const className = categories.get(a.category_id) ?? `category ${a.category_id}`;
    const attributes = a.attributes ?? {};
    const kept = {
      fileName,
      className,
      score: typeof attributes.score === 'number' ? attributes.score : typeof a.score === 'number' ? a.score : undefined,
      label: typeof attributes.label === 'string' ? attributes.label : undefined,
      color: typeof attributes.color === 'string' ? attributes.color : undefined,
      visible: typeof attributes.visible === 'boolean' ? attributes.visible : undefined,
      review: reviewFrom(attributes.review_state, attributes.review_source),
    };
    const segmentation = a.segmentation;
    if (Array.isArray(segmentation) && segmentation.length > 0 && segmentation.every((r) => Array.isArray(r))) {
      annotations.push({ ...kept, rings: (segmentation as number[][]).map(pairsToRing) });
    } else if (isRle(segmentation)) {
      try {
        annotations.push({ ...kept, mask: rleToMask(segmentation) });
      } catch (error) {
        problems.push(`annotation ${index + 1} on ${fileName}: ${error instanceof Error ? error.message : String(error)}`);
      }
    } else if (isBbox(a.bbox)) annotations.push({ ...kept, box: a.bbox });
    else problems.push(`annotation ${index + 1} on ${fileName}: neither a segmentation nor a bbox`);
  });
  return {
    format: 'coco',
    images: json.images!.map((i) => ({ name: fileNameOf(i.file_name), width: i.width, height: i.height })),
    categories: categoryList,
    annotations,
    problems,
  };
}

export const cocoFormat: DatasetFormat = {
  id: 'coco',
  holds: { mask: true, box: true, tag: false },
  holdsReview: true,
  label: 'COCO JSON',
  summary: 'instances JSON: one annotation per object, polygons (or RLE for objects with holes), bbox, area; boxes as bbox alone',
  options: [{ id: 'rleForHoles', label: 'Objects with holes as RLE masks (instead of keyhole cuts)', defaultValue: false }],
  async write(dataset, options) {
    return jsonFile('maskwright-session.coco.json', toCoco(dataset, { rleForHoles: !!options.rleForHoles }));
  },
  async read(files) {
    const found = jsonFilesWhere(files, isCoco);
    if (found.length === 0) return undefined;
    return { dataset: mergeImported('coco', found.map((x) => readCoco(x.json))), consumed: found.map((x) => x.file.name) };
  },
};
