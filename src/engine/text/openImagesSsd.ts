/**
 * Open Images detector: the SSD-MobileNetV2 of MediaPipe Objectron (23 Open Images V4 labels),
 * converted by scripts/convertDetector.ts from the .tflite in @mediapipe/objectron to
 * public/models/detector-open-images.onnx. It answers concepts COCO lacks that it was shown to find
 * on real photos (detectorsOnPhotos.test.ts): footwear, high heels, desk.
 *
 * Every constant below is the one of the graph that runs this model in MediaPipe
 * (ObjectDetectionOidV4Subgraph, compiled into @mediapipe/objectron's WebAssembly): the image is
 * stretched to 300×300 and scaled to [-1, 1] (ImageToTensorCalculator); the anchors are those of
 * SsdAnchorsCalculator (6 layers, strides 16…512, scales 0.2…0.95, ratios 1, 2, ½, 3, ⅓, reduced
 * lowest layer); boxes decode with scales 10, 10, 5, 5 and an exponential size, scores are the
 * logits' sigmoids, class 0 ("???") is background (TensorsToDetectionsCalculator); overlapping
 * boxes are suppressed at IoU 0.5 (NonMaxSuppressionCalculator).
 */
import type { ModelSession, Runtime } from '../runtime';
import type { RgbaImage } from '../types';
import { COCO_CLASSES } from './cocoClasses';
import type { Concept } from './concepts';
import { stretchedSignedRgbTensor, type ConceptDetector, type DetectOptions, type Detection } from './detector';
import { decodeSsdOutputs, ssdAnchors, type SsdAnchorOptions, type SsdClass } from './ssd';

export const OPEN_IMAGES_SSD_INPUT_SIZE = 300;
export const OPEN_IMAGES_SSD_INPUT = 'normalized_input_image_tensor';
export const OPEN_IMAGES_SSD_BOXES = 'raw_outputs/box_encodings';
export const OPEN_IMAGES_SSD_LOGITS = 'raw_outputs/class_predictions';

/** object_detection_oidv4_labelmap.txt, in logit-column order (column 0, "???", is background). */
export const OPEN_IMAGES_LABELS = [
  '???', 'Bicycle', 'Boot', 'Laptop', 'Person', 'Chair', 'Cattle', 'Desk', 'Cat', 'Computer mouse', 'Computer monitor', 'Box',
  'Mug', 'Coffee cup', 'Stationary bicycle', 'Table', 'Bottle', 'High heels', 'Vehicle', 'Footwear', 'Dog', 'Book', 'Camera', 'Car',
] as const;
export type OpenImagesLabel = (typeof OPEN_IMAGES_LABELS)[number];

/**
 * Each label's concept: its own name for the labels COCO lacks; the COCO class it names otherwise
 * ("Cattle" is COCO's cow, "Computer monitor" its tv). "Vehicle" names several COCO classes at once
 * and "???" is background: neither is a concept. Boots are footwear (Open Images files them so); a
 * "boot" prompt is not answered, since no photo here shows that label working. Box, camera and
 * stationary bicycle are not answered: on the photos here it called phones held up to take a picture
 * cameras, found a box only at the edge of the threshold, and met no exercise bike (docs/RESULTS.md).
 */
export const CONCEPT_OF_LABEL: Readonly<Record<OpenImagesLabel, Concept | undefined>> = {
  '???': undefined,
  Bicycle: 'bicycle',
  Boot: 'footwear',
  Laptop: 'laptop',
  Person: 'person',
  Chair: 'chair',
  Cattle: 'cow',
  Desk: 'desk',
  Cat: 'cat',
  'Computer mouse': 'mouse',
  'Computer monitor': 'tv',
  Box: undefined,
  Mug: 'cup',
  'Coffee cup': 'cup',
  'Stationary bicycle': undefined,
  Table: 'dining table',
  Bottle: 'bottle',
  'High heels': 'high heels',
  Vehicle: undefined,
  Footwear: 'footwear',
  Dog: 'dog',
  Book: 'book',
  Camera: undefined,
  Car: 'car',
};

const isCoco = (concept: Concept): boolean => (COCO_CLASSES as readonly string[]).includes(concept);

/** The concepts this detector answers in the product: those COCO lacks (the COCO detectors answer the rest). */
export const OPEN_IMAGES_CONCEPTS: readonly Concept[] = [
  ...new Set(OPEN_IMAGES_LABELS.flatMap((l) => CONCEPT_OF_LABEL[l] ?? []).filter((c) => !isCoco(c))),
];

/** The labels that are COCO classes, as those classes. */
export const OPEN_IMAGES_COCO_CLASSES: readonly Concept[] = [...new Set(OPEN_IMAGES_LABELS.flatMap((l) => CONCEPT_OF_LABEL[l] ?? []).filter(isCoco))];

/** SsdAnchorsCalculatorOptions of MediaPipe's ObjectDetectionOidV4Subgraph. */
export const OPEN_IMAGES_SSD_ANCHORS: SsdAnchorOptions = {
  inputSize: OPEN_IMAGES_SSD_INPUT_SIZE,
  minScale: 0.2,
  maxScale: 0.95,
  strides: [16, 32, 64, 128, 256, 512],
  aspectRatios: [1, 2, 0.5, 3, 0.3333],
  reduceBoxesInLowestLayer: true,
  interpolatedScaleAspectRatio: 1,
};
/** NonMaxSuppressionCalculator's min_suppression_threshold in that graph. */
const NMS_IOU = 0.5;

/** Logit column → the concept it answers among `vocabulary` (index into it), or undefined. */
function columnsFor(vocabulary: readonly Concept[]): (SsdClass | undefined)[] {
  return OPEN_IMAGES_LABELS.map((label) => {
    const concept = CONCEPT_OF_LABEL[label];
    const classIndex = concept === undefined ? -1 : vocabulary.indexOf(concept);
    return classIndex < 0 ? undefined : { classIndex, label: concept! };
  });
}

let anchors: Float32Array | undefined;

/** Raw outputs → boxes of the concepts in `vocabulary`, in image pixels, best first. */
export function decodeOpenImagesSsd(
  encodings: Float32Array,
  logits: Float32Array,
  width: number,
  height: number,
  vocabulary: readonly Concept[] = OPEN_IMAGES_CONCEPTS,
  options: DetectOptions = {},
): Detection[] {
  anchors ??= ssdAnchors(OPEN_IMAGES_SSD_ANCHORS);
  return decodeSsdOutputs(encodings, logits, anchors, width, height, columnsFor(vocabulary), { ...options, defaultNmsIou: NMS_IOU });
}

export class OpenImagesDetector implements ConceptDetector {
  readonly name = 'open-images-ssd';
  readonly inputSize = OPEN_IMAGES_SSD_INPUT_SIZE;
  private constructor(
    private readonly session: ModelSession,
    readonly vocabulary: readonly Concept[],
  ) {}

  /**
   * `answers`: 'beyond-coco' (the product) answers the labels COCO lacks; 'coco-shared' only the
   * labels that are COCO classes (person, car, cup …), which the evaluation uses to measure the
   * detector on coco-tiny and to fit its score calibration.
   */
  static async create(runtime: Runtime, model: string | Uint8Array, options: { answers?: 'beyond-coco' | 'coco-shared' } = {}): Promise<OpenImagesDetector> {
    const session = await runtime.createSession('detector-open-images', model);
    for (const name of [OPEN_IMAGES_SSD_BOXES, OPEN_IMAGES_SSD_LOGITS]) {
      if (!session.outputNames.includes(name)) throw new Error(`Open Images detector model has no output ${name}; re-run npm run models:detector`);
    }
    const vocabulary = options.answers === 'coco-shared' ? OPEN_IMAGES_COCO_CLASSES : OPEN_IMAGES_CONCEPTS;
    return new OpenImagesDetector(session, vocabulary);
  }

  async detect(image: RgbaImage, options: DetectOptions = {}): Promise<Detection[]> {
    const size = OPEN_IMAGES_SSD_INPUT_SIZE;
    const outputs = await this.session.run({ [OPEN_IMAGES_SSD_INPUT]: { data: stretchedSignedRgbTensor(image, size), dims: [1, size, size, 3] } }, [
      OPEN_IMAGES_SSD_BOXES,
      OPEN_IMAGES_SSD_LOGITS,
    ]);
    return decodeOpenImagesSsd(outputs[OPEN_IMAGES_SSD_BOXES].data, outputs[OPEN_IMAGES_SSD_LOGITS].data, image.width, image.height, this.vocabulary, options).map(
      (d) => ({ ...d, detector: this.name }),
    );
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}
