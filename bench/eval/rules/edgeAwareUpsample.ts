/**
 * Edge-aware upsampling of SAM's 256×256 logits (joint bilateral upsampling, Kopf et al. 2007), with
 * the photo as the guide.
 *
 * The decoder's logits have one cell per 4 model pixels, so a bilinear upsample puts the boundary
 * where the cell values cross zero, blind to where the photo's edge is. Near the boundary (where the
 * cells around a pixel disagree in sign) each pixel's logit is instead a mean of the same four cells
 * the bilinear upsample uses, each weighted by its bilinear weight times how close the pixel's colour
 * is to the cell's mean colour: a pixel leans to the side whose colour it shares. On a photo without
 * edges this is exactly the bilinear answer, and the boundary moves by at most one cell, so thin
 * parts the logits hold are kept. Away from the boundary the bilinear answer is kept, so the cost
 * grows with the boundary's length, not the image's area.
 */
import { LOW_RES_SIZE, MODEL_SIZE, type ModelFrame } from '../../../src/engine/frame';
import type { BinaryMask, RgbaImage } from '../../../src/engine/types';
import { upsampleLogitsToMask } from '../../../src/engine/upsample';
import type { DecodeRule } from '../../../src/engine/decodeRule';

/**
 * Colour fall-off (RGB distance, 0–255 per channel): about a tenth of the range, the usual setting for
 * joint bilateral filters, so that a clear edge outweighs a cell's distance and noise does not.
 */
const RANGE_SIGMA = 25;

/** Mean colour of the image pixels inside each low-resolution cell (the cells the image covers). */
export interface CellColours {
  readonly cols: number;
  readonly rows: number;
  /** rows × cols × 3, mean R, G, B. */
  readonly rgb: Float32Array;
}

const cellsPerPixel = (resized: number, size: number) => resized / size / (MODEL_SIZE / LOW_RES_SIZE);

export function cellColours(image: RgbaImage, frame: ModelFrame): CellColours {
  const { width, height } = image;
  const perX = cellsPerPixel(frame.resizedWidth, width);
  const perY = cellsPerPixel(frame.resizedHeight, height);
  const cols = Math.min(LOW_RES_SIZE, Math.ceil(width * perX));
  const rows = Math.min(LOW_RES_SIZE, Math.ceil(height * perY));
  const sums = new Float64Array(rows * cols * 3);
  const counts = new Uint32Array(rows * cols);
  const colOf = new Int32Array(width);
  for (let x = 0; x < width; x++) colOf[x] = Math.min(cols - 1, Math.floor((x + 0.5) * perX));
  for (let y = 0; y < height; y++) {
    const row = Math.min(rows - 1, Math.floor((y + 0.5) * perY)) * cols;
    for (let x = 0; x < width; x++) {
      const cell = row + colOf[x];
      const p = (y * width + x) * 4;
      sums[cell * 3] += image.data[p];
      sums[cell * 3 + 1] += image.data[p + 1];
      sums[cell * 3 + 2] += image.data[p + 2];
      counts[cell]++;
    }
  }
  const rgb = new Float32Array(rows * cols * 3);
  for (let cell = 0; cell < rows * cols; cell++) {
    const n = Math.max(1, counts[cell]);
    for (let c = 0; c < 3; c++) rgb[cell * 3 + c] = sums[cell * 3 + c] / n;
  }
  return { cols, rows, rgb };
}

/** Cells whose 2×2 bilinear support (this cell and the next row and column) holds both signs. */
function boundaryCells(logits: Float32Array, colours: CellColours): Uint8Array {
  const { cols, rows } = colours;
  const mixed = new Uint8Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const sign = logits[r * LOW_RES_SIZE + c] > 0;
      const right = logits[r * LOW_RES_SIZE + Math.min(cols - 1, c + 1)] > 0;
      const below = logits[Math.min(rows - 1, r + 1) * LOW_RES_SIZE + c] > 0;
      const diagonal = logits[Math.min(rows - 1, r + 1) * LOW_RES_SIZE + Math.min(cols - 1, c + 1)] > 0;
      if (right !== sign || below !== sign || diagonal !== sign) mixed[r * cols + c] = 1;
    }
  }
  return mixed;
}

export function edgeAwareLogitsToMask(logits: Float32Array, frame: ModelFrame, image: RgbaImage, colours = cellColours(image, frame)): BinaryMask {
  const mask = upsampleLogitsToMask(logits, frame);
  const { width, height } = frame;
  const { cols, rows, rgb } = colours;
  const mixed = boundaryCells(logits, colours);
  const perX = cellsPerPixel(frame.resizedWidth, width);
  const perY = cellsPerPixel(frame.resizedHeight, height);
  const range = -1 / (2 * RANGE_SIGMA * RANGE_SIGMA);
  const clampRow = (r: number) => Math.min(rows - 1, Math.max(0, r));
  const clampCol = (c: number) => Math.min(cols - 1, Math.max(0, c));

  for (let y = 0; y < height; y++) {
    // The pixel's position on the cell grid (cell centres at integers), as in the bilinear upsample.
    const v = Math.min(rows - 1, Math.max(0, (y + 0.5) * perY - 0.5));
    const r0 = Math.floor(v);
    const fy = v - r0;
    for (let x = 0; x < width; x++) {
      const u = Math.min(cols - 1, Math.max(0, (x + 0.5) * perX - 0.5));
      const c0 = Math.floor(u);
      if (!mixed[r0 * cols + c0]) continue;
      const fx = u - c0;
      const p = (y * width + x) * 4;
      const red = image.data[p];
      const green = image.data[p + 1];
      const blue = image.data[p + 2];
      let weighted = 0;
      let total = 0;
      for (let k = 0; k < 4; k++) {
        const r = clampRow(r0 + (k >> 1));
        const c = clampCol(c0 + (k & 1));
        const spatial = (k >> 1 ? fy : 1 - fy) * (k & 1 ? fx : 1 - fx);
        const cell = r * cols + c;
        const dr = red - rgb[cell * 3];
        const dg = green - rgb[cell * 3 + 1];
        const db = blue - rgb[cell * 3 + 2];
        const w = spatial * Math.exp((dr * dr + dg * dg + db * db) * range);
        weighted += w * logits[r * LOW_RES_SIZE + c];
        total += w;
      }
      // A pixel unlike every cell around it (all weights vanish) keeps the bilinear answer.
      if (total > 1e-12) mask.data[y * width + x] = weighted / total > 0 ? 1 : 0;
    }
  }
  return mask;
}

/**
 * Edge-aware upsampling as a decoding rule (src/engine/decodeRule.ts): every mask of a prediction is
 * made with the photo as the guide. The engine keeps embeddings, not photos, so the caller says where
 * each embedded photo is (`photoOf`, by the key `embed` returned); each photo's cell colours are
 * computed on its first mask and kept while the photo is.
 */
export function edgeAwareUpsampling(photoOf: (imageKey: string) => RgbaImage | undefined): DecodeRule {
  const colours = new WeakMap<RgbaImage, CellColours>();
  return {
    toMask(logits, frame, imageKey) {
      const photo = photoOf(imageKey);
      if (!photo) throw new Error(`edge-aware upsampling needs the photo of "${imageKey}", which its caller did not keep`);
      let known = colours.get(photo);
      if (!known) {
        known = cellColours(photo, frame);
        colours.set(photo, known);
      }
      return edgeAwareLogitsToMask(logits, frame, photo, known);
    },
  };
}
