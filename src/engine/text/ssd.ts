/**
 * Single-shot detector (SSD) post-processing shared by the SSD detectors: the anchors, as
 * MediaPipe's SsdAnchorsCalculator (and TF's object detection API) generate them, and the decoding
 * of raw box encodings and class logits into boxes, with per-class non-maximum suppression.
 */
import type { Concept } from './concepts';
import { boxIoU, suppressOverlaps, type DetectOptions, type Detection } from './detector';

/** What one column of the class logits stands for; undefined columns (background, unused ids) are skipped. */
export interface SsdClass {
  readonly classIndex: number;
  readonly label: Concept;
}

/** MediaPipe's SsdAnchorsCalculatorOptions, the fields our detectors set. */
export interface SsdAnchorOptions {
  readonly inputSize: number;
  readonly minScale: number;
  readonly maxScale: number;
  readonly strides: readonly number[];
  readonly aspectRatios: readonly number[];
  /** The lowest layer gets three fixed anchors: scale 0.1 at ratio 1, and the layer's scale at ratios 2 and 0.5. */
  readonly reduceBoxesInLowestLayer: boolean;
  /** Adds per cell an anchor of this ratio at the scale between this layer's and the next (0: none). */
  readonly interpolatedScaleAspectRatio: number;
}

function scaleOf(options: SsdAnchorOptions, layer: number): number {
  const { minScale, maxScale, strides } = options;
  return strides.length === 1 ? (minScale + maxScale) / 2 : minScale + ((maxScale - minScale) * layer) / (strides.length - 1);
}

/**
 * Anchors in network order (layer, row, column, anchor) as corners (ymin, xmin, ymax, xmax) in 0..1,
 * following MediaPipe's SsdAnchorsCalculator: each layer's feature map is ceil(inputSize / stride)
 * cells, anchor centres at the cell centres, sizes scale / √ratio by scale · √ratio.
 */
export function ssdAnchors(options: SsdAnchorOptions): Float32Array {
  const out: number[] = [];
  options.strides.forEach((stride, layer) => {
    const scale = scaleOf(options, layer);
    const shapes: { scale: number; ratio: number }[] = [];
    if (layer === 0 && options.reduceBoxesInLowestLayer) {
      shapes.push({ scale: 0.1, ratio: 1 }, { scale, ratio: 2 }, { scale, ratio: 0.5 });
    } else {
      for (const ratio of options.aspectRatios) shapes.push({ scale, ratio });
      if (options.interpolatedScaleAspectRatio > 0) {
        const next = layer === options.strides.length - 1 ? 1 : scaleOf(options, layer + 1);
        shapes.push({ scale: Math.sqrt(scale * next), ratio: options.interpolatedScaleAspectRatio });
      }
    }
    const cells = Math.ceil(options.inputSize / stride);
    for (let y = 0; y < cells; y++) {
      for (let x = 0; x < cells; x++) {
        const cy = (y + 0.5) / cells;
        const cx = (x + 0.5) / cells;
        for (const { scale: s, ratio } of shapes) {
          const h = s / Math.sqrt(ratio);
          const w = s * Math.sqrt(ratio);
          out.push(cy - h / 2, cx - w / 2, cy + h / 2, cx + w / 2);
        }
      }
    }
  });
  return Float32Array.from(out);
}

/** The box coder's scale factors for (y, x, h, w): TF's FasterRcnnBoxCoder, MediaPipe's y/x/h/w_scale. */
const BOX_CODER_SCALES = [10, 10, 5, 5] as const;
/** At most this many detections per image (TF's and MediaPipe's post-processing keep 100). */
const MAX_DETECTIONS = 100;

const sigmoid = (v: number): number => 1 / (1 + Math.exp(-v));

/**
 * Raw SSD outputs → boxes in image pixels: every (anchor, class) pair scoring at least `minScore`
 * (sigmoid of the logit), then per-class NMS, best first, at most 100.
 * `encodings` [n, 4] (ty, tx, th, tw); `logits` [n, columns.length]; `anchors` [n, 4] (ymin, xmin, ymax, xmax), 0..1.
 */
export function decodeSsdOutputs(
  encodings: Float32Array,
  logits: Float32Array,
  anchors: Float32Array,
  width: number,
  height: number,
  columns: readonly (SsdClass | undefined)[],
  options: DetectOptions & { defaultNmsIou: number },
): Detection[] {
  const minScore = options.minScore ?? 0.05;
  const nmsIou = options.nmsIou ?? options.defaultNmsIou;
  const minLogit = Math.log(minScore / (1 - minScore));
  const count = anchors.length / 4;
  const classes = logits.length / count;
  const all: Detection[] = [];
  for (let i = 0; i < count; i++) {
    let box: Detection['box'] | undefined;
    for (let k = 0; k < classes; k++) {
      const logit = logits[i * classes + k];
      if (!(logit >= minLogit)) continue;
      const column = columns[k];
      if (!column) continue;
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
      all.push({ classIndex: column.classIndex, label: column.label, score: sigmoid(logit), box });
    }
  }
  all.sort((a, b) => b.score - a.score);
  const kept = suppressOverlaps(all, (a, b) => (a.classIndex === b.classIndex ? boxIoU(a.box, b.box) : 0), nmsIou);
  return kept.slice(0, MAX_DETECTIONS);
}
