/**
 * Click consistency: a positive click must end up inside the mask and a negative one outside.
 *
 * SAM's answer to a new click sometimes ignores it: the previous mask fed back as `mask_input` holds
 * the model where it was, or token 0 keeps a shape that leaves the clicked part out. The decoder
 * already produced other candidates (the four mask tokens, and the same prompt without the previous
 * mask); when the default answer violates a click, the candidate that agrees with the most clicks is
 * taken instead. An answer that violates nothing is never replaced, so clicks that already work keep
 * exactly SAM's behaviour.
 */
import { LOW_RES_SIZE, MODEL_SIZE, type ModelFrame } from './frame';
import type { PointPrompt } from './types';

/**
 * The low-res logit at an image pixel, interpolated exactly as `upsampleLogitsToMask` does, so
 * "logit > 0 here" is the same statement as "the returned mask covers this pixel".
 */
export function logitAtPixel(logits: Float32Array, frame: ModelFrame, x: number, y: number): number {
  const px = Math.min(frame.width - 1, Math.max(0, Math.floor(x)));
  const py = Math.min(frame.height - 1, Math.max(0, Math.floor(y)));
  const toLowRes = (resized: number, size: number) => resized / size / (MODEL_SIZE / LOW_RES_SIZE);
  const axis = (p: number, resized: number, size: number): [number, number, number] => {
    const u = Math.min(LOW_RES_SIZE - 1, Math.max(0, (p + 0.5) * toLowRes(resized, size) - 0.5));
    const f = Math.floor(u);
    return [f, Math.min(f + 1, LOW_RES_SIZE - 1), u - f];
  };
  const [x0, x1, wx] = axis(px, frame.resizedWidth, frame.width);
  const [y0, y1, wy] = axis(py, frame.resizedHeight, frame.height);
  const row = (r: number) => {
    const a = logits[r * LOW_RES_SIZE + x0];
    return a + (logits[r * LOW_RES_SIZE + x1] - a) * wx;
  };
  const top = row(y0);
  return wy === 0 ? top : top + (row(y1) - top) * wy;
}

export interface ClickAgreement {
  /** Clicks the mask agrees with. */
  readonly satisfied: number;
  /** Whether the most recent click is respected: the user's latest intent weighs most. */
  readonly latest: boolean;
}

export function clickAgreement(logits: Float32Array, frame: ModelFrame, points: readonly PointPrompt[]): ClickAgreement {
  let satisfied = 0;
  let latest = true;
  points.forEach((p, i) => {
    const inside = logitAtPixel(logits, frame, p.x, p.y) > 0;
    const ok = inside === (p.positive ?? true);
    if (ok) satisfied++;
    if (i === points.length - 1) latest = ok;
  });
  return { satisfied, latest };
}

export const violatesNone = (agreement: ClickAgreement, points: readonly PointPrompt[]): boolean =>
  agreement.satisfied === points.length;

/** Positive when `a` agrees with the clicks better than `b`: more clicks, then the latest click. */
export function compareAgreement(a: ClickAgreement, b: ClickAgreement): number {
  if (a.satisfied !== b.satisfied) return a.satisfied - b.satisfied;
  return Number(a.latest) - Number(b.latest);
}

/**
 * Index of the candidate that agrees with the clicks best. Candidates come in order of preference
 * (the engine's default answer first); a later one wins only by agreeing strictly better.
 */
export function mostConsistent(agreements: readonly ClickAgreement[]): number {
  let best = 0;
  for (let i = 1; i < agreements.length; i++) {
    if (compareAgreement(agreements[i], agreements[best]) > 0) best = i;
  }
  return agreements.length === 0 ? -1 : best;
}

/** The low-res cell nearest to an image pixel (the cell whose logit weighs most at that pixel). */
export function cellAtPixel(frame: ModelFrame, x: number, y: number): { cx: number; cy: number } {
  const axis = (p: number, resized: number, size: number, valid: number) => {
    const pixel = Math.min(size - 1, Math.max(0, Math.floor(p)));
    const u = (pixel + 0.5) * (resized / size / (MODEL_SIZE / LOW_RES_SIZE)) - 0.5;
    return Math.min(valid - 1, Math.max(0, Math.round(u)));
  };
  const validWidth = Math.min(LOW_RES_SIZE, Math.ceil((frame.resizedWidth * LOW_RES_SIZE) / MODEL_SIZE));
  const validHeight = Math.min(LOW_RES_SIZE, Math.ceil((frame.resizedHeight * LOW_RES_SIZE) / MODEL_SIZE));
  return { cx: axis(x, frame.resizedWidth, frame.width, validWidth), cy: axis(y, frame.resizedHeight, frame.height, validHeight) };
}

/**
 * Local correction: `base` with the one region changed that the click asks to change. The region is
 * the 4-connected part of the cells where `alternative` disagrees with `base` (one says object, the
 * other background) that contains the clicked cell; there `alternative`'s logits replace `base`'s,
 * everywhere else `base` stays as it was. A user's click says "this part is wrong", not "redo the
 * whole mask": the rest of the mask, which earlier clicks may have fixed, is kept. Null when the two
 * agree at the clicked cell.
 */
export function correctAround(base: Float32Array, alternative: Float32Array, frame: ModelFrame, click: PointPrompt): Float32Array | null {
  const { cx, cy } = cellAtPixel(frame, click.x, click.y);
  const width = Math.min(LOW_RES_SIZE, Math.ceil((frame.resizedWidth * LOW_RES_SIZE) / MODEL_SIZE));
  const height = Math.min(LOW_RES_SIZE, Math.ceil((frame.resizedHeight * LOW_RES_SIZE) / MODEL_SIZE));
  const differs = (i: number) => base[i] > 0 !== alternative[i] > 0;
  const start = cy * LOW_RES_SIZE + cx;
  if (!differs(start)) return null;
  // The window: a click fixes the error it lies in, whose size is about the click's distance from
  // where the mask already says what the click wants; twice that (and at least two cells) bounds
  // the change, so an alternative that differs everywhere cannot replace the whole mask.
  const wanted = alternative[start] > 0;
  let nearest2 = Infinity;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (base[y * LOW_RES_SIZE + x] > 0 !== wanted) continue;
      const d2 = (x - cx) ** 2 + (y - cy) ** 2;
      if (d2 < nearest2) nearest2 = d2;
    }
  }
  const radius = Number.isFinite(nearest2) ? 2 * Math.sqrt(nearest2) + 2 : Infinity;
  const radius2 = radius * radius;
  const out = base.slice();
  const seen = new Uint8Array(LOW_RES_SIZE * LOW_RES_SIZE);
  const stack = [start];
  seen[start] = 1;
  while (stack.length > 0) {
    const i = stack.pop()!;
    out[i] = alternative[i];
    const x = i % LOW_RES_SIZE;
    const y = (i - x) / LOW_RES_SIZE;
    const visit = (j: number) => {
      const jx = j % LOW_RES_SIZE;
      const jy = (j - jx) / LOW_RES_SIZE;
      if (!seen[j] && differs(j) && (jx - cx) ** 2 + (jy - cy) ** 2 <= radius2) {
        seen[j] = 1;
        stack.push(j);
      }
    };
    if (x > 0) visit(i - 1);
    if (x < width - 1) visit(i + 1);
    if (y > 0) visit(i - LOW_RES_SIZE);
    if (y < height - 1) visit(i + LOW_RES_SIZE);
  }
  return out;
}
