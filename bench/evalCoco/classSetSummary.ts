/**
 * The learn eval's figures on a set of classes (the classes hidden from the detectors,
 * unknownClasses.ts), each class alone and the set together: AP50 (mean over its classes), recall at
 * precision ≥ 70 % of the set's guesses ranked together, actions per instance, ECE of the shown
 * proposals of those classes, and the ceiling (instances some proposal fits, whatever its class).
 *
 * Actions are counted by who caused them: a shown proposal by the class it was proposed as (a bottle
 * proposed as a cup is one of the cup's actions), a hand-made object by its own class.
 */
import { expectedCalibrationError } from '../../src/engine/learn/calibration';
import { averagePrecision, HAND_LABEL_ACTIONS, recallAtPrecision, type ClassRow, type Ranked, type ShownDecisionRow } from './learnReplay';

export interface ClassSetFigures {
  instances: number;
  /** Share of the instances some proposal overlaps at the match IoU. */
  ceiling: number;
  ap50: number;
  recallAtPrecision70: number;
  actionsPerInstance: number;
  ece: number;
  shown: number;
}

export interface ClassSetSummary extends ClassSetFigures {
  classes: string[];
  byClass: (ClassSetFigures & { classId: string })[];
}

export function classSetSummary(classes: readonly string[], replay: { byClass: readonly ClassRow[]; ranked: readonly Ranked[]; decisions: readonly ShownDecisionRow[] }): ClassSetSummary {
  const rows = classes.map((classId) => replay.byClass.find((r) => r.classId === classId)).filter((r): r is ClassRow => r !== undefined);
  const figures = (members: readonly ClassRow[], ap50: number): ClassSetFigures => {
    const names = new Set(members.map((r) => r.classId));
    const instances = members.reduce((s, r) => s + r.instances, 0);
    const handAdded = members.reduce((s, r) => s + r.handAdded, 0);
    const shown = replay.decisions.filter((d) => names.has(d.classId));
    return {
      instances,
      ceiling: members.reduce((s, r) => s + r.withProposal, 0) / instances,
      ap50,
      recallAtPrecision70: recallAtPrecision(replay.ranked.filter((r) => names.has(r.classId)), instances, 0.7),
      actionsPerInstance: (shown.length + HAND_LABEL_ACTIONS * handAdded) / instances,
      ece: shown.length ? expectedCalibrationError(shown).ece : NaN,
      shown: shown.length,
    };
  };
  const byClass = rows.map((r) => ({ classId: r.classId, ...figures([r], averagePrecision(replay.ranked.filter((g) => g.classId === r.classId), r.instances)) }));
  const apOfSet = byClass.reduce((s, r) => s + r.ap50, 0) / byClass.length;
  return { classes: rows.map((r) => r.classId), ...figures(rows, apOfSet), byClass };
}

/** The summary as a table, the set's row last. */
export function classSetTable(summary: ClassSetSummary, title: string): string[] {
  const pct = (v: number) => (Number.isNaN(v) ? '–' : (v * 100).toFixed(1));
  const line = (name: string, f: ClassSetFigures) =>
    `| ${name} | ${f.instances} | ${pct(f.ceiling)} | ${pct(f.ap50)} | ${pct(f.recallAtPrecision70)} | ${f.actionsPerInstance.toFixed(2)} | ${pct(f.ece)} | ${f.shown} |`;
  return [
    title,
    '| class | instances | ceiling % | AP50 | recall at P ≥ 70 % | actions/instance | ECE | shown |',
    '|---|---|---|---|---|---|---|---|',
    ...summary.byClass.map((r) => line(r.classId, r)),
    line(`**the set (${summary.classes.length})**`, summary),
  ];
}
