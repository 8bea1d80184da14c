/**
 * Per-detector score calibration: maps each detector's own score to the probability that its box,
 * refined by SAM, is a right answer (mask IoU ≥ 0.5 with an object of the class), so that one
 * threshold means the same for every detector and pooled answers rank fairly.
 *
 * Platt scaling on the score's logit: p = σ(a · logit(s) + b). The parameters are fitted by
 * `npx tsx bench/evalCoco/fitCalibration.ts` on the FIT half of coco-tiny only (images at even
 * positions in file-name order); the evaluation reports calibration and accuracy on the other half
 * separately, so the reported calibration error is measured on images the fit never saw.
 */
export interface PlattParameters {
  readonly a: number;
  readonly b: number;
}

/**
 * Fitted values (see the module comment); a detector missing here is left as it scores.
 * Fitted against box matches (box IoU ≥ 0.5 with an object of the class; the detectors alone, no SAM),
 * for the service's looks at the photo (one per detector: no detection rule, pool.ts).
 * Other passes give other score distributions and need their own fit (the eval's --calibration).
 */
export const DETECTOR_CALIBRATION: Readonly<Record<string, PlattParameters>> = {
  centernet: { a: 2.7093, b: 1.0872 },
  'coco-ssd': { a: 1.6048, b: -0.4493 },
  /**
   * The Open Images SSD answers only concepts coco-tiny has no labels for (footwear, desk, box …).
   * Its scores are fitted on the labels it shares with COCO (person, car, chair, cup …: `--open-images
   * --only open-images-ssd`), alone as it answers in the service, and applied to all its labels:
   * one network, one score head, so a score is assumed to mean the same across its classes.
   */
  'open-images-ssd': { a: 2.2069, b: 0.8118 },
};

const EPSILON = 1e-6;

export function logit(p: number): number {
  const q = Math.min(Math.max(p, EPSILON), 1 - EPSILON);
  return Math.log(q / (1 - q));
}

export function applyPlatt(score: number, { a, b }: PlattParameters): number {
  return 1 / (1 + Math.exp(-(a * logit(score) + b)));
}

export function calibrate(detector: string | undefined, score: number, table: Readonly<Record<string, PlattParameters>> = DETECTOR_CALIBRATION): number {
  const parameters = detector === undefined ? undefined : table[detector];
  return parameters ? applyPlatt(score, parameters) : score;
}

/**
 * Maximum-likelihood Platt parameters for (score, right?) pairs: Newton's method on the logistic
 * log-loss, with a tiny ridge so that perfectly separated data still converges.
 */
export function fitPlatt(samples: readonly { score: number; positive: boolean }[]): PlattParameters {
  let a = 1;
  let b = 0;
  const ridge = 1e-3;
  for (let iteration = 0; iteration < 100; iteration++) {
    let ga = ridge * (a - 1);
    let gb = ridge * b;
    let haa = ridge;
    let hab = 0;
    let hbb = ridge;
    for (const { score, positive } of samples) {
      const x = logit(score);
      const p = 1 / (1 + Math.exp(-(a * x + b)));
      const r = p - (positive ? 1 : 0);
      const w = p * (1 - p);
      ga += r * x;
      gb += r;
      haa += w * x * x;
      hab += w * x;
      hbb += w;
    }
    const det = haa * hbb - hab * hab;
    if (!(det > 0)) break;
    const da = (hbb * ga - hab * gb) / det;
    const db = (haa * gb - hab * ga) / det;
    a -= da;
    b -= db;
    if (Math.abs(da) + Math.abs(db) < 1e-9) break;
  }
  return { a, b };
}
