/**
 * Hand detector: HandTrack (SSD-MobileNetV2-FPN), converted by scripts/convertDetector.ts from the
 * TF.js graph in @vladmandic/human to public/models/detector-hand.onnx. Vocabulary: "hand".
 *
 * The graph was cut before TF's post-processing, as for COCO-SSD: per anchor the raw box encodings
 * and the class logits (background, then hand, fist, pinch, point, face, tip, pinchtip), and the
 * anchors as centre and size. Hand, fist, pinch and point are all hands; face, tip and pinchtip are
 * not reported (faces have their own detector; tips are fingertips). The network sees the whole
 * image stretched to 320×320, as its own preprocessing does.
 */
import type { ModelSession, Runtime } from '../runtime';
import type { RgbaImage } from '../types';
import { decodeSsdWith, stretchedInputTensor, type SsdClassLabel } from './cocoSsd';
import type { ConceptDetector, DetectOptions, Detection } from './detector';

export const HANDTRACK_INPUT_SIZE = 320;
export const HANDTRACK_INPUT = 'image';
const ANCHORS = 'StatefulPartitionedCall/Postprocessor/Decode/get_center_coordinates_and_sizes';
export const HANDTRACK_OUTPUTS = {
  encodings: 'StatefulPartitionedCall/concat',
  logits: 'StatefulPartitionedCall/concat_1',
  anchorCentreY: `${ANCHORS}/add`,
  anchorCentreX: `${ANCHORS}/add_1`,
  anchorHeight: `${ANCHORS}/sub_1`,
  anchorWidth: `${ANCHORS}/sub`,
} as const;
/** Columns 1..4 of the logits: hand, fist, pinch, point. */
const HAND_COLUMNS = new Set([1, 2, 3, 4]);
/** @vladmandic/human's own minimum hand score (hand.minConfidence 0.5): not calibrated on labelled hands here. */
export const HANDTRACK_MIN_SCORE = 0.5;
/** @vladmandic/human's suppression overlap for hands. */
const NMS_IOU = 0.2;

const handLabelOf: SsdClassLabel = (column) => (HAND_COLUMNS.has(column) ? { classIndex: 0, label: 'hand' } : undefined);

/** Anchors as centre (y, x) and size (h, w) → corners (ymin, xmin, ymax, xmax), all 0..1. */
export function anchorCorners(cy: Float32Array, cx: Float32Array, h: Float32Array, w: Float32Array): Float32Array {
  const out = new Float32Array(cy.length * 4);
  for (let i = 0; i < cy.length; i++) out.set([cy[i] - h[i] / 2, cx[i] - w[i] / 2, cy[i] + h[i] / 2, cx[i] + w[i] / 2], i * 4);
  return out;
}

export function decodeHands(
  encodings: Float32Array,
  logits: Float32Array,
  anchors: Float32Array,
  width: number,
  height: number,
  options: DetectOptions = {},
): Detection[] {
  const minScore = Math.max(options.minScore ?? HANDTRACK_MIN_SCORE, HANDTRACK_MIN_SCORE);
  return decodeSsdWith(handLabelOf, encodings, handsWhereMostLikely(logits, anchors.length / 4), anchors, width, height, { nmsIou: NMS_IOU, ...options, minScore });
}

/**
 * The logits with the hand columns silenced at every anchor where another class (a face, a
 * fingertip) scores higher: the model's own verdict that the box is not a hand.
 */
export function handsWhereMostLikely(logits: Float32Array, anchors: number): Float32Array {
  const classes = logits.length / anchors;
  const out = logits.slice();
  for (let i = 0; i < anchors; i++) {
    let best = 1;
    for (let k = 2; k < classes; k++) if (logits[i * classes + k] > logits[i * classes + best]) best = k;
    if (!HAND_COLUMNS.has(best)) for (const k of HAND_COLUMNS) out[i * classes + k] = -Infinity;
  }
  return out;
}

export class HandDetector implements ConceptDetector {
  readonly name = 'handtrack';
  readonly vocabulary = ['hand'] as const;
  private anchors?: Float32Array;
  private constructor(private readonly session: ModelSession) {}

  static async create(runtime: Runtime, model: string | Uint8Array): Promise<HandDetector> {
    const session = await runtime.createSession('detector-hand', model);
    for (const name of Object.values(HANDTRACK_OUTPUTS)) {
      if (!session.outputNames.includes(name)) throw new Error(`hand detector model has no output ${name}; re-run npm run models:detector`);
    }
    return new HandDetector(session);
  }

  async detect(image: RgbaImage, options: DetectOptions = {}): Promise<Detection[]> {
    const size = HANDTRACK_INPUT_SIZE;
    // The anchors are constants of the model: fetched on the first run only.
    const fetches = this.anchors ? [HANDTRACK_OUTPUTS.encodings, HANDTRACK_OUTPUTS.logits] : Object.values(HANDTRACK_OUTPUTS);
    const outputs = await this.session.run({ [HANDTRACK_INPUT]: { data: stretchedInputTensor(image, size), dims: [1, size, size, 3] } }, fetches);
    this.anchors ??= anchorCorners(
      outputs[HANDTRACK_OUTPUTS.anchorCentreY].data,
      outputs[HANDTRACK_OUTPUTS.anchorCentreX].data,
      outputs[HANDTRACK_OUTPUTS.anchorHeight].data,
      outputs[HANDTRACK_OUTPUTS.anchorWidth].data,
    );
    const hands = decodeHands(outputs[HANDTRACK_OUTPUTS.encodings].data, outputs[HANDTRACK_OUTPUTS.logits].data, this.anchors, image.width, image.height, options);
    return hands.map((d) => ({ ...d, detector: this.name }));
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}
