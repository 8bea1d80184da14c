/**
 * COCO-80 object detector: CenterNet with a MobileNetV3 backbone (converted from the TF.js graph
 * in `@vladmandic/human` to public/models/detector.onnx by scripts/convertDetector.ts).
 *
 * The network sees the whole image letterboxed into 512×512 RGB in 0..255 (as the upstream project's
 * inference code feeds it) and returns its own top-100 heat-map peaks as [x1, y1, x2, y2, score, class] in that frame.
 */
import type { ModelSession, Runtime } from '../runtime';
import type { RgbaImage } from '../types';
import { COCO_CLASSES } from './cocoClasses';
import type { Concept } from './concepts';

export const DETECTOR_INPUT_SIZE = 512;
export const DETECTOR_INPUT = 'tower_0/images';
export const DETECTOR_DETECTIONS = 'tower_0/detections';

/** Axis-aligned box in image pixels, corner form. */
export interface CornerBox {
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
}

export interface Detection {
  readonly classIndex: number;
  readonly label: Concept;
  /** The detector's own score, in [0, 1] (CenterNet: the heat-map peak; SSD: the class sigmoid). */
  readonly score: number;
  readonly box: CornerBox;
  /** Which detector found it (ConceptDetector.name). */
  readonly detector?: string;
  /** The detector's score before calibration, when `score` has been calibrated (see calibration.ts). */
  readonly rawScore?: number;
}

/**
 * What the text pipeline needs of a detector: its name, the concepts it can find, and the boxes it
 * finds in an image. New detectors plug in here without touching prompts, SAM or masks.
 */
export interface ConceptDetector {
  readonly name: string;
  readonly vocabulary: readonly Concept[];
  /** The side of the square the network sees the photo at (decides whether tiling adds detail: passes.ts). */
  readonly inputSize: number;
  detect(image: RgbaImage, options?: DetectOptions): Promise<Detection[]>;
  /**
   * The same detections and, from the same network run, the backbone's feature map; only detectors
   * whose model exposes one have this (learned classes pool it over a region: learn/descriptors.ts).
   */
  detectWithFeatures?(image: RgbaImage, options?: DetectOptions): Promise<DetectorRun>;
  release(): Promise<void>;
}

/** A grid of feature vectors over the whole photo (row-major, channels last); cell (r, q) covers its share of the photo. */
export interface FeatureMap {
  readonly data: Float32Array;
  readonly rows: number;
  readonly columns: number;
  readonly channels: number;
}

export interface DetectorRun {
  readonly detections: Detection[];
  /** Absent when the detector's model has no feature output (a model converted before it was exposed). */
  readonly features?: FeatureMap;
}

export interface DetectOptions {
  /** Peaks below this score are dropped. Default 0.05 (low: the caller decides what to keep). */
  readonly minScore?: number;
  /** Same-class boxes overlapping more than this (IoU) keep only the higher-scored one. Default 0.7. */
  readonly nmsIou?: number;
}

/**
 * Where the image sits inside the detector's square input: scaled by `scale` (aspect kept) and
 * centred with zero padding, as the upstream project's own inference code prepares it.
 */
export interface Letterbox {
  readonly scale: number;
  readonly dx: number;
  readonly dy: number;
}

export function letterboxFor(width: number, height: number, size = DETECTOR_INPUT_SIZE): Letterbox {
  const scale = Math.min(size / width, size / height);
  const w = Math.max(1, Math.round(width * scale));
  const h = Math.max(1, Math.round(height * scale));
  return { scale, dx: Math.floor((size - w) / 2), dy: Math.floor((size - h) / 2) };
}

/**
 * Bilinear resize (half-pixel centres, like cv2.resize) of `image` to w×h RGB in 0..255, written into
 * `out` (a size×size×3 NHWC float tensor) with its top-left corner at (dx, dy).
 */
export function resizeRgbInto(image: RgbaImage, out: Float32Array, size: number, w: number, h: number, dx: number, dy: number): Float32Array {
  const { width, height, data } = image;
  const sx = width / w;
  const sy = height / h;
  for (let y = 0; y < h; y++) {
    const fy = Math.min(Math.max((y + 0.5) * sy - 0.5, 0), height - 1);
    const y0 = Math.floor(fy);
    const y1 = Math.min(y0 + 1, height - 1);
    const wy = fy - y0;
    for (let x = 0; x < w; x++) {
      const fx = Math.min(Math.max((x + 0.5) * sx - 0.5, 0), width - 1);
      const x0 = Math.floor(fx);
      const x1 = Math.min(x0 + 1, width - 1);
      const wx = fx - x0;
      const o = ((y + dy) * size + x + dx) * 3;
      for (let c = 0; c < 3; c++) {
        const a = data[(y0 * width + x0) * 4 + c];
        const b = data[(y0 * width + x1) * 4 + c];
        const d = data[(y1 * width + x0) * 4 + c];
        const e = data[(y1 * width + x1) * 4 + c];
        out[o + c] = (a * (1 - wx) + b * wx) * (1 - wy) + (d * (1 - wx) + e * wx) * wy;
      }
    }
  }
  return out;
}

/** The image stretched over the whole size×size input, RGB scaled to [-1, 1] (as MediaPipe's detectors take it). */
export function stretchedSignedRgbTensor(image: RgbaImage, size: number): Float32Array {
  const tensor = resizeRgbInto(image, new Float32Array(size * size * 3), size, size, size, 0, 0);
  for (let i = 0; i < tensor.length; i++) tensor[i] = tensor[i] / 127.5 - 1;
  return tensor;
}

/** Letterboxed bilinear resize: size×size RGB float32 in 0..255, NHWC, zero padding. */
export function detectorInputTensor(image: RgbaImage, size = DETECTOR_INPUT_SIZE): { tensor: Float32Array; letterbox: Letterbox } {
  const letterbox = letterboxFor(image.width, image.height, size);
  const w = Math.max(1, Math.round(image.width * letterbox.scale));
  const h = Math.max(1, Math.round(image.height * letterbox.scale));
  const tensor = resizeRgbInto(image, new Float32Array(size * size * 3), size, w, h, letterbox.dx, letterbox.dy);
  return { tensor, letterbox };
}

export function boxIoU(a: CornerBox, b: CornerBox): number {
  const iw = Math.max(0, Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0));
  const ih = Math.max(0, Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0));
  const inter = iw * ih;
  const union = (a.x1 - a.x0) * (a.y1 - a.y0) + (b.x1 - b.x0) * (b.y1 - b.y0) - inter;
  return union > 0 ? inter / union : 0;
}

/** Greedy non-maximum suppression; `items` must be sorted best first. */
export function suppressOverlaps<T>(items: readonly T[], overlap: (a: T, b: T) => number, threshold: number): T[] {
  const kept: T[] = [];
  for (const item of items) if (kept.every((k) => overlap(k, item) <= threshold)) kept.push(item);
  return kept;
}

/** Turns the raw [100, 6] detections output into boxes in image pixels. */
export function decodeDetections(
  raw: Float32Array,
  width: number,
  height: number,
  letterbox: Letterbox,
  options: DetectOptions = {},
): Detection[] {
  const minScore = options.minScore ?? 0.05;
  const nmsIou = options.nmsIou ?? 0.7;
  const toX = (v: number): number => Math.min(Math.max((v - letterbox.dx) / letterbox.scale, 0), width);
  const toY = (v: number): number => Math.min(Math.max((v - letterbox.dy) / letterbox.scale, 0), height);
  const all: Detection[] = [];
  for (let i = 0; i + 6 <= raw.length; i += 6) {
    const score = raw[i + 4];
    const classIndex = Math.round(raw[i + 5]);
    if (!(score >= minScore) || classIndex < 0 || classIndex >= COCO_CLASSES.length) continue;
    const box = { x0: toX(raw[i]), y0: toY(raw[i + 1]), x1: toX(raw[i + 2]), y1: toY(raw[i + 3]) };
    if (box.x1 - box.x0 < 1 || box.y1 - box.y0 < 1) continue;
    all.push({ classIndex, label: COCO_CLASSES[classIndex], score, box });
  }
  all.sort((a, b) => b.score - a.score);
  return suppressOverlaps(all, (a, b) => (a.classIndex === b.classIndex ? boxIoU(a.box, b.box) : 0), nmsIou);
}

export class ObjectDetector implements ConceptDetector {
  readonly name = 'centernet';
  readonly vocabulary = COCO_CLASSES;
  readonly inputSize = DETECTOR_INPUT_SIZE;
  private constructor(private readonly session: ModelSession) {}

  static async create(runtime: Runtime, model: string | Uint8Array): Promise<ObjectDetector> {
    const session = await runtime.createSession('detector', model);
    for (const name of [DETECTOR_DETECTIONS]) {
      if (!session.outputNames.includes(name)) throw new Error(`detector model has no output ${name}; re-run npm run models:detector`);
    }
    return new ObjectDetector(session);
  }

  /** All detections of the 80 classes, best first. */
  async detect(image: RgbaImage, options: DetectOptions = {}): Promise<Detection[]> {
    const { tensor, letterbox } = detectorInputTensor(image);
    const outputs = await this.session.run(
      { [DETECTOR_INPUT]: { data: tensor, dims: [1, DETECTOR_INPUT_SIZE, DETECTOR_INPUT_SIZE, 3] } },
      [DETECTOR_DETECTIONS],
    );
    return decodeDetections(outputs[DETECTOR_DETECTIONS].data, image.width, image.height, letterbox, options).map((d) => ({ ...d, detector: this.name }));
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}
