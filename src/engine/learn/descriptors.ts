/**
 * Region descriptors for learned classes: what the classifier (learnedClasses.ts) sees of one object.
 * Six kinds, each computed from what the engine already has for a photo, so describing a proposal
 * costs no model run of its own:
 *
 * - `sam`: the SAM image embedding pooled over the mask: the coverage-weighted mean of the image-centred,
 *   unit-length 256-d cell vectors find-similar uses (text/similar.ts), unit length.
 * - `detectors`: the shipped detectors' class scores around the region: for every concept of every
 *   detector, the best score of a detection of that concept whose box overlaps the region's box, scaled
 *   by how well it overlaps. A class no detector names still has a signature here (a raccoon is a bit of
 *   a cat, a dog and a bear to them).
 * - `appearance`: colour, texture and shape statistics of the masked pixels.
 * - `backbone`: COCO-SSD's backbone feature map (19×19×576, from the detector run the descriptors
 *   already make) averaged over the mask's pixels: what the detector "sees" there before it names a
 *   class, so it carries shape and texture cues for classes it has no name for.
 * - `fit`: how the region's box sits on the detectors' boxes of any class: reaching past one, a part of
 *   one, or fitting one (fitDescriptor).
 * - `ring`: how the SAM cells just outside the region's box compare with those inside and along its
 *   border (ringDescriptor.ts). The overlap ranker reads it, not the classifier by default.
 *
 * Pure engine code: the same numbers in the browser worker, the server and the CLI.
 */
import { maskBounds } from '../bounds';
import { DETECTORS } from '../catalog';
import { insideShare } from './suppress';
import { ringDescriptor } from './ringDescriptor';
import { boxIoU, type CornerBox, type Detection, type FeatureMap } from '../text/detector';
import { cellNormaliser, geometry, maskCellCoverage } from '../text/similar';
import type { BinaryMask, RgbaImage } from '../types';

export type DescriptorKind = 'sam' | 'detectors' | 'appearance' | 'backbone' | 'fit' | 'ring';
export const DESCRIPTOR_KINDS: readonly DescriptorKind[] = ['sam', 'detectors', 'appearance', 'backbone', 'fit', 'ring'];
/**
 * What a learned model reads unless told otherwise. The learn eval's ablation (docs/RESULTS.md) has the
 * two datasets disagree: the backbone map leads on raccoon and trails on coco-tiny. With only three
 * labelled photos (the studio's first minutes) a model reading the backbone map rated a whole-photo
 * region above the animal in it, so the default stays with the kinds that lead on coco-tiny and keep
 * the few-label case right; `backbone` is computed alongside for models that ask for it. `fit` tells a
 * whole object from a part of it or from it with its surroundings, which every other kind says alike
 * (the most confident wrong raccoon proposals were such; docs/RESULTS.md, h37-fit).
 */
export const DEFAULT_DESCRIPTOR_KINDS: readonly DescriptorKind[] = ['sam', 'detectors', 'appearance', 'fit'];

/** One region's descriptor, by kind: plain number arrays, so it serialises and crosses the worker as is. */
export type RegionDescriptor = Readonly<Record<Exclude<DescriptorKind, 'fit' | 'ring'>, readonly number[]>> & {
  /** Absent from descriptors made before the kind existed: a model reading it refuses them (featureVector). */
  readonly fit?: readonly number[];
  /** The same: absent from descriptors made before the kind existed (ringDescriptor.ts). */
  readonly ring?: readonly number[];
};

/** Every concept of every shipped detector, once, in catalog order: the `detectors` descriptor's columns. */
export const DETECTOR_CONCEPTS: readonly string[] = [...new Set(DETECTORS.flatMap((d) => d.vocabulary as readonly string[]))];

/** A detection counts for a region from this box IoU on, fully from `FULL_OVERLAP_IOU`. */
export const MIN_OVERLAP_IOU = 0.3;
export const FULL_OVERLAP_IOU = 0.7;

export const APPEARANCE_LENGTH = 20;
const HUE_BINS = 8;
/** Pixels sampled per region at most: the statistics settle long before, and big masks stay cheap. */
const MAX_SAMPLES = 20_000;

/** The photo's SAM cells, centred and unit length, each made once per photo when a region first covers it. */
export interface SamCells {
  readonly channels: number;
  readonly width: number;
  readonly height: number;
  /** Grid cell `index`'s vector (row-major over the 64×64 grid). */
  cell(index: number): Float32Array;
}

export function samCells(embedding: { readonly data: Float32Array; readonly dims: readonly number[] }, width: number, height: number): SamCells {
  const [, channels, gh, gw] = embedding.dims;
  if (gh !== 64 || gw !== 64) throw new Error(`expected a 64×64 embedding, got [${embedding.dims}]`);
  // Made on demand: normalising all 4,096 cells up front was most of the first description on a photo.
  const normalise = cellNormaliser(embedding.data, channels, geometry(width, height));
  const made: (Float32Array | undefined)[] = new Array(gh * gw);
  const cell = (index: number): Float32Array => {
    let vector = made[index];
    if (!vector) {
      vector = new Float32Array(channels);
      normalise(index, vector);
      made[index] = vector;
    }
    return vector;
  };
  return { channels, width, height, cell };
}

export function samDescriptor(cells: SamCells, mask: BinaryMask): number[] {
  const coverage = maskCellCoverage(mask, geometry(cells.width, cells.height));
  const out = new Float64Array(cells.channels);
  for (let i = 0; i < coverage.length; i++) {
    const w = coverage[i];
    if (w === 0) continue;
    const cell = cells.cell(i);
    for (let c = 0; c < cells.channels; c++) out[c] += w * cell[c];
  }
  return unitLength(out);
}

export function detectorDescriptor(detections: readonly Detection[], box: CornerBox, concepts: readonly string[] = DETECTOR_CONCEPTS): number[] {
  const out = new Array<number>(concepts.length).fill(0);
  for (const d of detections) {
    const iou = boxIoU(d.box, box);
    if (iou < MIN_OVERLAP_IOU) continue;
    const column = concepts.indexOf(d.label);
    if (column < 0) continue;
    const value = d.score * Math.min(1, iou / FULL_OVERLAP_IOU);
    if (value > out[column]) out[column] = value;
  }
  return out;
}

/**
 * How the region sits on the objects the detectors boxed, whatever their class: [how far it reaches
 * past one (the best score of a detection lying inside the region's box without filling it: the
 * object and its surroundings), how far it is a part of one (of a detection it lies inside without
 * filling it), how well it fits one (the best score × box IoU)]. The inside shares are weighted by how
 * far the boxes are from equal (1 − IoU), so a region fitting a detection's box reads zero in the
 * first two. The `detectors` kind cannot say this: it counts a detection fully from a box IoU well
 * short of a fit, so a part, the whole and the whole with its surroundings look alike there. Three
 * class-agnostic numbers rather than one pair per concept: the learn eval's raccoon sessions lost AP
 * with the per-concept form (docs/RESULTS.md, h37-fit), ten photos being too few to weigh 168 columns.
 */
export function fitDescriptor(detections: readonly Detection[], box: CornerBox): number[] {
  let reachesPast = 0;
  let partOf = 0;
  let fits = 0;
  for (const d of detections) {
    const iou = boxIoU(d.box, box);
    reachesPast = Math.max(reachesPast, d.score * insideShare(d.box, box) * (1 - iou));
    partOf = Math.max(partOf, d.score * insideShare(box, d.box) * (1 - iou));
    fits = Math.max(fits, d.score * iou);
  }
  return [reachesPast, partOf, fits];
}

/**
 * Mean and spread of R, G, B; a saturation-weighted hue histogram; mean saturation and value; mean
 * brightness gradient (texture); the region's share of the photo (log), its box's aspect (log) and how
 * much of its box it fills.
 */
export function appearanceDescriptor(image: RgbaImage, mask: BinaryMask): number[] {
  const box = maskBox(mask);
  if (!box) return new Array<number>(APPEARANCE_LENGTH).fill(0);
  const { width, data } = image;
  const boxArea = (box.x1 - box.x0) * (box.y1 - box.y0);
  const stride = Math.max(1, Math.ceil(Math.sqrt(boxArea / MAX_SAMPLES)));
  // Scalars, not per-pixel arrays: this loop runs up to MAX_SAMPLES times on every learning step, and
  // allocating there cost more than the arithmetic. The sums are taken in the same order as before, so
  // the descriptor is the same to the last bit (a model's examples stay comparable).
  let sumR = 0;
  let sumG = 0;
  let sumB = 0;
  let sumSqR = 0;
  let sumSqG = 0;
  let sumSqB = 0;
  const hue = new Float64Array(HUE_BINS);
  let saturation = 0;
  let value = 0;
  let gradient = 0;
  let n = 0;
  const grey = (k: number) => 0.299 * data[k] + 0.587 * data[k + 1] + 0.114 * data[k + 2];
  for (let y = box.y0; y < box.y1; y += stride) {
    for (let x = box.x0; x < box.x1; x += stride) {
      if (!mask.data[y * mask.width + x]) continue;
      const k = (y * width + x) * 4;
      const r = data[k] / 255;
      const g = data[k + 1] / 255;
      const b = data[k + 2] / 255;
      sumR += r;
      sumG += g;
      sumB += b;
      sumSqR += r * r;
      sumSqG += g * g;
      sumSqB += b * b;
      const max = Math.max(r, g, b);
      const min = Math.min(r, g, b);
      const s = max > 0 ? (max - min) / max : 0;
      saturation += s;
      value += max;
      if (max > min) {
        const h = max === r ? ((g - b) / (max - min) + 6) % 6 : max === g ? (b - r) / (max - min) + 2 : (r - g) / (max - min) + 4;
        hue[Math.min(HUE_BINS - 1, Math.floor((h / 6) * HUE_BINS))] += s;
      }
      const here = grey(k);
      const gx = x + 1 < image.width ? grey(k + 4) - here : 0;
      const gy = y + 1 < image.height ? grey(k + width * 4) - here : 0;
      gradient += Math.sqrt(gx * gx + gy * gy) / 255;
      n++;
    }
  }
  if (n === 0) return new Array<number>(APPEARANCE_LENGTH).fill(0);
  let area = 0;
  for (let i = 0; i < mask.data.length; i++) area += mask.data[i];
  const hueTotal = hue.reduce((s, v) => s + v, 0) || 1;
  const means = [sumR / n, sumG / n, sumB / n];
  const sumSq = [sumSqR, sumSqG, sumSqB];
  return [
    ...means,
    ...sumSq.map((s, c) => Math.sqrt(Math.max(0, s / n - means[c] ** 2))),
    ...[...hue].map((h) => h / hueTotal),
    saturation / n,
    value / n,
    gradient / n,
    Math.log(area / (image.width * image.height)),
    Math.log((box.x1 - box.x0) / (box.y1 - box.y0)),
    area / boxArea,
  ];
}

/**
 * The mean feature vector over the mask's pixels, each pixel reading the grid cell it falls in (the
 * map spans the whole photo). An empty mask, or no map, gives an empty array: see featureVector.
 */
export function backboneDescriptor(features: FeatureMap | undefined, mask: BinaryMask): number[] {
  if (!features) return [];
  const { rows, columns, channels, data } = features;
  const weights = new Float64Array(rows * columns);
  let total = 0;
  for (let y = 0; y < mask.height; y++) {
    const rowBase = Math.min(rows - 1, Math.floor((y * rows) / mask.height)) * columns;
    for (let x = 0; x < mask.width; x++) {
      if (!mask.data[y * mask.width + x]) continue;
      weights[rowBase + Math.min(columns - 1, Math.floor((x * columns) / mask.width))]++;
      total++;
    }
  }
  if (total === 0) return new Array<number>(channels).fill(0);
  const out = new Float64Array(channels);
  for (let cell = 0; cell < weights.length; cell++) {
    const w = weights[cell] / total;
    if (w === 0) continue;
    const base = cell * channels;
    for (let c = 0; c < channels; c++) out[c] += w * data[base + c];
  }
  return Array.from(out);
}

/** The photo's share of a region description: what every region of one photo has in common. */
export interface PhotoContext {
  readonly image: RgbaImage;
  readonly cells: SamCells;
  readonly detections: readonly Detection[];
  /** COCO-SSD's backbone map; absent when its model predates the output (the `backbone` kind is then empty). */
  readonly features?: FeatureMap;
}

export function describeRegion(photo: PhotoContext, mask: BinaryMask): RegionDescriptor {
  const box = maskBox(mask) ?? { x0: 0, y0: 0, x1: 0, y1: 0 };
  return {
    sam: samDescriptor(photo.cells, mask),
    detectors: detectorDescriptor(photo.detections, box),
    appearance: appearanceDescriptor(photo.image, mask),
    backbone: backboneDescriptor(photo.features, mask),
    fit: fitDescriptor(photo.detections, box),
    ring: ringDescriptor(photo.cells, box),
  };
}

/**
 * The kinds asked for, end to end: the classifier's input vector. A kind the descriptor lacks (made
 * before the kind existed, or by a detector model without its feature output) is an error that says
 * so, rather than a shorter vector the classifier would misread.
 */
export function featureVector(descriptor: RegionDescriptor, kinds: readonly DescriptorKind[]): number[] {
  for (const k of kinds) {
    if (!descriptor[k]?.length) {
      throw new Error(
        `the region descriptor has no "${k}" part` +
          (k === 'backbone' ? ': the COCO-SSD model has no feature output; convert it again (npm run models:detector)' : ''),
      );
    }
  }
  return kinds.flatMap((k) => descriptor[k] ?? []);
}

/** The tightest box around the mask's pixels, exclusive corners; undefined for an empty mask. */
export function maskBox(mask: BinaryMask): CornerBox | undefined {
  const b = maskBounds(mask.data, mask.width, mask.height);
  return b && { x0: b.x0, y0: b.y0, x1: b.x1 + 1, y1: b.y1 + 1 };
}

/** A filled box as a mask: how a box-only region (a box a person drew) is described. */
export function boxMask(box: CornerBox, width: number, height: number): BinaryMask {
  const data = new Uint8Array(width * height);
  const x0 = Math.max(0, Math.floor(box.x0));
  const x1 = Math.min(width, Math.ceil(box.x1));
  for (let y = Math.max(0, Math.floor(box.y0)); y < Math.min(height, Math.ceil(box.y1)); y++) data.fill(1, y * width + x0, y * width + x1);
  return { width, height, data };
}

function unitLength(values: ArrayLike<number>): number[] {
  let norm = 0;
  for (let i = 0; i < values.length; i++) norm += values[i] * values[i];
  norm = Math.sqrt(norm) || 1;
  return Array.from(values, (v) => v / norm);
}
