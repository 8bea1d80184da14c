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
import { LOW_RES_SIZE, MODEL_SIZE, type ModelFrame } from '../../../src/engine/frame';
import type { PointPrompt } from '../../../src/engine/types';
import { logitAtPixel } from '../../../src/engine/upsample';
import { rankTokens, tokenLogits, type TokenOutputs } from '../../../src/engine/candidates';
import type { DecodeRule } from '../../../src/engine/decodeRule';

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

/**
 * Local correction of every click the answer violates, latest click first: the first alternative
 * (in the engine's order) that respects the click replaces the answer only in the region around the
 * click where the two disagree, and only if that makes the answer agree with more clicks.
 */
export function correctViolations(
  outputs: TokenOutputs,
  token: number,
  alternatives: readonly { outputs: TokenOutputs; token: number }[],
  frame: ModelFrame,
  points: readonly PointPrompt[],
): Float32Array | undefined {
  let current: Float32Array = tokenLogits(outputs, token).slice();
  let agreement = clickAgreement(current, frame, points);
  let changed = false;
  for (let i = points.length - 1; i >= 0; i--) {
    const click = points[i];
    const wanted = click.positive ?? true;
    if (logitAtPixel(current, frame, click.x, click.y) > 0 === wanted) continue;
    for (const alternative of alternatives) {
      const logits = tokenLogits(alternative.outputs, alternative.token);
      if (logitAtPixel(logits, frame, click.x, click.y) > 0 !== wanted) continue;
      const patched = correctAround(current, logits, frame, click);
      if (!patched) continue;
      const patchedAgreement = clickAgreement(patched, frame, points);
      if (compareAgreement(patchedAgreement, agreement) <= 0) continue;
      current = patched;
      agreement = patchedAgreement;
      changed = true;
      break;
    }
  }
  return changed ? current : undefined;
}

/**
 * How an answer is kept consistent with the clicks: 'off' is SAM's answer; 'tokens' / 'tokens-and-fresh'
 * replace an answer that leaves a positive click outside or a negative one inside by the candidate that
 * agrees with the most clicks, of the four tokens ('tokens-and-fresh': and of the prompt decoded once
 * more without the previous mask, only when the first answer violates a click); 'local' changes the
 * answer only around each violated click (`correctViolations`).
 */
export type ClickConsistency = 'off' | 'tokens' | 'tokens-and-fresh' | 'local';

/** The click-consistency rule as a decoding rule (the engine's hook: src/engine/decodeRule.ts). */
export function clickConsistency(mode: Exclude<ClickConsistency, 'off'>): DecodeRule {
  return {
    async correct(chosen, step) {
      const points = step.prompt.points ?? [];
      if (points.length === 0 || !step.multimaskAvailable) return chosen;
      const { frame } = step;
      const agreementOf = (logits: Float32Array) => clickAgreement(logits, frame, points);
      if (violatesNone(agreementOf(chosen.logits ?? tokenLogits(chosen.outputs, chosen.token)), points)) return chosen;
      const pool = [
        { outputs: chosen.outputs, token: chosen.token },
        ...rankTokens(chosen.outputs, frame, chosen.kind, true, chosen.token)
          .slice(1)
          .map((token) => ({ outputs: chosen.outputs, token })),
      ];
      if (mode !== 'tokens' && step.prompt.maskInput) {
        const fresh = await step.decode({ ...step.prompt, maskInput: undefined });
        pool.push(...rankTokens(fresh.outputs, frame, fresh.kind, true).map((token) => ({ outputs: fresh.outputs, token })));
      }
      if (mode === 'local') return { ...chosen, logits: correctViolations(pool[0].outputs, pool[0].token, pool.slice(1), frame, points) };
      const best = pool[mostConsistent(pool.map((c) => agreementOf(tokenLogits(c.outputs, c.token))))];
      return { ...chosen, outputs: best.outputs, token: best.token, logits: undefined };
    },
  };
}
