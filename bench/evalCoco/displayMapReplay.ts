/**
 * A display map (ShownCalibration's `displayMethod`) replayed on a learn eval run's decisions, without
 * the eval: the display map decides nothing (not what is shown, not its order, not what is learned),
 * so a run's decisions are the same under every display map, and what each map would have displayed
 * follows from the ranking probabilities and outcomes alone. Decisions are taken in, photo by photo,
 * after that photo is displayed, as the engine takes in a finished photo's outcomes.
 */
import { ShownCalibration, type ShownCalibrationMethod } from '../../src/engine/learn/shownCalibration';
import type { ShownDecisionRow } from './learnReplay';

/** The run's decisions, each with the probability `method` would have displayed for it. */
export function replayDisplayMap(decisions: readonly ShownDecisionRow[], method: ShownCalibrationMethod): ShownDecisionRow[] {
  // The ranking map is the identity here: the rows already carry its output, which the display map maps.
  const calibration = new ShownCalibration('none', method);
  const ranking = (row: ShownDecisionRow) => row.rankingProbability ?? row.probability;
  const out: ShownDecisionRow[] = [];
  let photoStart = 0;
  for (let i = 0; i <= decisions.length; i++) {
    if (i < decisions.length && decisions[i].photo === decisions[photoStart].photo) continue;
    const photo = decisions.slice(photoStart, i);
    out.push(...photo.map((row) => ({ ...row, rankingProbability: ranking(row), probability: calibration.displayed(ranking(row), row.classId) })));
    calibration.record(photo.map((row) => ({ x: [ranking(row)], correct: row.correct, heldOutScore: ranking(row), classId: row.classId })));
    calibration.refit((x) => x[0]);
    photoStart = i;
  }
  return out;
}
