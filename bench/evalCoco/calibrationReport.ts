/**
 * Where the shown probability's calibration error comes from (issue 37, item 3), from the decisions
 * learn eval runs keep (`decisions` in their results JSON): per run against the error a perfectly
 * calibrated map would show on as many decisions (the noise floor), pooled over runs (where the floor
 * is lower and a systematic error shows), per reliability bin, early against late photos, per class.
 *
 * `npx tsx bench/evalCoco/calibrationReportCli.ts RESULTS.json…` (the runs of one dataset, e.g. its photo orders)
 */
import { expectedCalibrationError, type ReliabilityBin } from '../../src/engine/learn/calibration';
import { eceIfCalibrated, type ShownDecisionRow } from './learnReplay';

export interface CalibrationReport {
  readonly runs: readonly { ece: number; floor: number; decisions: number }[];
  readonly meanEce: number;
  readonly meanFloor: number;
  /** How often perfectly calibrated probabilities show a mean-of-runs ECE at least `meanEce`: near 0, a real error; near 0.5, noise. */
  readonly chanceIfCalibrated: number;
  readonly pooled: { ece: number; floor: number; decisions: number; bins: ReliabilityBin[] };
  /** Each run's decisions split at its middle photo, pooled over runs: scores from an older model against a newer one. */
  readonly early: { ece: number; meanProbability: number; accuracy: number; decisions: number };
  readonly late: { ece: number; meanProbability: number; accuracy: number; decisions: number };
  readonly byClass: readonly { classId: string; decisions: number; meanProbability: number; accuracy: number }[];
}

/** Simulated outcomes per estimate: enough that the floor's own spread is well under a tenth of a point. */
const DRAWS = 200;

export function calibrationReport(runs: readonly (readonly ShownDecisionRow[])[]): CalibrationReport {
  const random = parkMiller(1);
  const simulatedEce = (decisions: readonly ShownDecisionRow[]) =>
    expectedCalibrationError(decisions.map((d) => ({ probability: d.probability, correct: random() < d.probability }))).ece;
  const perRun = runs.map((decisions) => ({ ece: expectedCalibrationError(decisions).ece, floor: eceIfCalibrated(decisions.map((d) => d.probability), DRAWS), decisions: decisions.length }));
  const meanEce = average(perRun.map((r) => r.ece));
  let atLeast = 0;
  for (let d = 0; d < DRAWS; d++) if (average(runs.map(simulatedEce)) >= meanEce) atLeast++;
  const pooled = runs.flat();
  const halves = runs.map((decisions) => {
    const photos = decisions.map((d) => d.photo).sort((a, b) => a - b);
    const middle = photos[Math.floor((photos.length - 1) / 2)];
    return { early: decisions.filter((d) => d.photo <= middle), late: decisions.filter((d) => d.photo > middle) };
  });
  const byClass = new Map<string, ShownDecisionRow[]>();
  for (const d of pooled) byClass.set(d.classId, [...(byClass.get(d.classId) ?? []), d]);
  return {
    runs: perRun,
    meanEce,
    meanFloor: average(perRun.map((r) => r.floor)),
    chanceIfCalibrated: atLeast / DRAWS,
    pooled: { ...expectedCalibrationError(pooled), floor: eceIfCalibrated(pooled.map((d) => d.probability), DRAWS), decisions: pooled.length },
    early: summary(halves.flatMap((h) => h.early)),
    late: summary(halves.flatMap((h) => h.late)),
    byClass: [...byClass].map(([classId, decisions]) => ({ classId, ...summary(decisions) })).sort((a, b) => b.decisions - a.decisions),
  };
}

function summary(decisions: readonly ShownDecisionRow[]): { ece: number; meanProbability: number; accuracy: number; decisions: number } {
  return {
    ece: expectedCalibrationError(decisions).ece,
    meanProbability: average(decisions.map((d) => d.probability)),
    accuracy: average(decisions.map((d) => (d.correct ? 1 : 0))),
    decisions: decisions.length,
  };
}

/** Park and Miller's generator: exact in doubles, the same draws on every run. */
function parkMiller(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 48271) % 2147483647) / 2147483647;
}

const average = (values: readonly number[]) => (values.length ? values.reduce((s, v) => s + v, 0) / values.length : NaN);
