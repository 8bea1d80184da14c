/**
 * Face detector: BlazeFace (MediaPipe's 256×256 model), converted by scripts/convertDetector.ts from
 * the TF.js graph in @vladmandic/human to public/models/detector-face.onnx. Vocabulary: "face".
 *
 * The network sees the whole image stretched to 256×256 RGB scaled to [-1, 1], as @vladmandic/human
 * feeds it by default (letterboxing it instead made it take a cup for a face), and returns, per
 * anchor, a face logit and 16 regressors in input pixels: the box centre's offset from the anchor,
 * the box size, then six key points (unused here). Anchors: a 16×16 grid with 2 per cell, then an
 * 8×8 grid with 6 per cell, at the cell centres (as MediaPipe and @vladmandic/human generate them).
 */
import type { ModelSession, Runtime } from '../runtime';
import type { RgbaImage } from '../types';
import { boxIoU, stretchedSignedRgbTensor, suppressOverlaps, type ConceptDetector, type DetectOptions, type Detection } from './detector';

export const BLAZEFACE_INPUT_SIZE = 256;
export const BLAZEFACE_INPUT = 'input';
/** [logits, regressors] of the 16×16 grid, then of the 8×8 grid. */
export const BLAZEFACE_OUTPUTS = [
  ['Identity', 'Identity_2'],
  ['Identity_1', 'Identity_3'],
] as const;
const GRIDS = [
  { cells: 16, perCell: 2 },
  { cells: 8, perCell: 6 },
] as const;
const REGRESSORS = 16;
/**
 * MediaPipe's own minimum score for this detector (min_detection_confidence 0.5): its scores are
 * not calibrated on labelled faces here, so the upstream default decides what counts as a face.
 */
export const BLAZEFACE_MIN_SCORE = 0.5;
/** MediaPipe's suppression overlap for faces. */
const NMS_IOU = 0.3;

/** Anchor centres in input pixels, in the network's output order. */
export function blazeFaceAnchors(size = BLAZEFACE_INPUT_SIZE): Float32Array[] {
  return GRIDS.map(({ cells, perCell }) => {
    const stride = size / cells;
    const out = new Float32Array(cells * cells * perCell * 2);
    let k = 0;
    for (let y = 0; y < cells; y++) {
      for (let x = 0; x < cells; x++) {
        for (let n = 0; n < perCell; n++) {
          out[k++] = stride * (x + 0.5);
          out[k++] = stride * (y + 0.5);
        }
      }
    }
    return out;
  });
}

/** The image stretched to 256×256 RGB in [-1, 1]. */
export function blazeFaceInputTensor(image: RgbaImage, size = BLAZEFACE_INPUT_SIZE): Float32Array {
  return stretchedSignedRgbTensor(image, size);
}

/** Raw outputs of both grids → face boxes in image pixels (at or above BLAZEFACE_MIN_SCORE), best first. */
export function decodeBlazeFace(
  grids: readonly { logits: Float32Array; regressors: Float32Array }[],
  width: number,
  height: number,
  options: DetectOptions = {},
  size = BLAZEFACE_INPUT_SIZE,
): Detection[] {
  const minScore = Math.max(options.minScore ?? BLAZEFACE_MIN_SCORE, BLAZEFACE_MIN_SCORE);
  const minLogit = Math.log(minScore / (1 - minScore));
  const anchors = blazeFaceAnchors(size);
  const toX = (v: number): number => Math.min(Math.max((v * width) / size, 0), width);
  const toY = (v: number): number => Math.min(Math.max((v * height) / size, 0), height);
  const all: Detection[] = [];
  grids.forEach(({ logits, regressors }, g) => {
    for (let i = 0; i < logits.length; i++) {
      if (!(logits[i] >= minLogit)) continue;
      const r = i * REGRESSORS;
      const cx = anchors[g][2 * i] + regressors[r];
      const cy = anchors[g][2 * i + 1] + regressors[r + 1];
      const w = regressors[r + 2];
      const h = regressors[r + 3];
      const box = { x0: toX(cx - w / 2), y0: toY(cy - h / 2), x1: toX(cx + w / 2), y1: toY(cy + h / 2) };
      if (box.x1 - box.x0 < 1 || box.y1 - box.y0 < 1) continue;
      all.push({ classIndex: 0, label: 'face', score: 1 / (1 + Math.exp(-logits[i])), box });
    }
  });
  all.sort((a, b) => b.score - a.score);
  return suppressOverlaps(all, (a, b) => boxIoU(a.box, b.box), options.nmsIou ?? NMS_IOU);
}

export class FaceDetector implements ConceptDetector {
  readonly name = 'blazeface';
  readonly vocabulary = ['face'] as const;
  readonly inputSize = BLAZEFACE_INPUT_SIZE;
  private constructor(private readonly session: ModelSession) {}

  static async create(runtime: Runtime, model: string | Uint8Array): Promise<FaceDetector> {
    const session = await runtime.createSession('detector-face', model);
    for (const name of BLAZEFACE_OUTPUTS.flat()) {
      if (!session.outputNames.includes(name)) throw new Error(`face detector model has no output ${name}; re-run npm run models:detector`);
    }
    return new FaceDetector(session);
  }

  async detect(image: RgbaImage, options: DetectOptions = {}): Promise<Detection[]> {
    const size = BLAZEFACE_INPUT_SIZE;
    const outputs = await this.session.run({ [BLAZEFACE_INPUT]: { data: blazeFaceInputTensor(image), dims: [1, size, size, 3] } }, BLAZEFACE_OUTPUTS.flat());
    const grids = BLAZEFACE_OUTPUTS.map(([logits, regressors]) => ({ logits: outputs[logits].data, regressors: outputs[regressors].data }));
    return decodeBlazeFace(grids, image.width, image.height, options).map((d) => ({ ...d, detector: this.name }));
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}
