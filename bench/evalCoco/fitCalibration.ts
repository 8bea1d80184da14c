/**
 * `npx tsx bench/evalCoco/fitCalibration.ts [RESULTS.json]`
 *
 * Fits each detector's Platt parameters (src/engine/text/calibration.ts) from the answers of an
 * uncalibrated evaluation on the FIT half of coco-tiny:
 *
 *   npm run eval -- --dataset coco --split fit --uncalibrated --out bench/results/eval-coco-fit.json
 *
 * The outcome of an answer is whether its SAM mask matched an object of the prompt's class at
 * mask IoU 0.5 (answers on crowd regions are left out, as in the AP). Prints the table to paste.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expectedCalibrationError } from '../../src/engine/learn/calibration';
import { applyPlatt, fitPlatt, type PlattParameters } from '../../src/engine/text/calibration';

interface Answer {
  detector?: string;
  rawScore: number;
  matched50: boolean;
  ignored50: boolean;
  split?: string;
}

export function fitByDetector(answers: readonly Answer[]): Record<string, PlattParameters & { answers: number; positives: number; ece: number }> {
  const byDetector = new Map<string, Answer[]>();
  for (const a of answers) if (!a.ignored50 && a.detector) byDetector.set(a.detector, [...(byDetector.get(a.detector) ?? []), a]);
  const out: Record<string, PlattParameters & { answers: number; positives: number; ece: number }> = {};
  for (const [detector, list] of byDetector) {
    const samples = list.map((a) => ({ score: a.rawScore, positive: a.matched50 }));
    const parameters = fitPlatt(samples);
    out[detector] = { ...parameters, answers: list.length, positives: samples.filter((x) => x.positive).length, ece: expectedCalibrationError(samples.map((x) => ({ probability: applyPlatt(x.score, parameters), correct: x.positive }))).ece };
  }
  return out;
}

if (process.argv[1]?.endsWith('fitCalibration.ts')) {
  const file = resolve(process.argv[2] ?? 'bench/results/eval-coco-fit.json');
  const results = JSON.parse(readFileSync(file, 'utf8')) as { split?: string; calibrated?: boolean; answers: Answer[] };
  if (results.split !== 'fit' || results.calibrated) {
    console.error(`${file}: expected an uncalibrated run on the fit split (got split=${results.split}, calibrated=${results.calibrated})`);
    process.exit(2);
  }
  const fitted = fitByDetector(results.answers);
  for (const [detector, f] of Object.entries(fitted)) {
    console.log(`${detector}: a ${f.a.toFixed(4)} b ${f.b.toFixed(4)} (${f.answers} answers, ${f.positives} right; in-sample ECE ${(f.ece * 100).toFixed(1)} %)`);
  }
  console.log(JSON.stringify(Object.fromEntries(Object.entries(fitted).map(([k, f]) => [k, { a: +f.a.toFixed(4), b: +f.b.toFixed(4) }]))));
}
