/**
 * `npx tsx bench/evalCoco/displayMapReplayCli.ts METHOD[,METHOD…] RESULTS.json…`: the ECE each display
 * map (displayMapReplay.ts) would have had on learn eval runs of one dataset, per run and their mean,
 * with calibrationReport.ts's reliability for each.
 */
import { readFile } from 'node:fs/promises';
import { expectedCalibrationError } from '../../src/engine/learn/calibration';
import { SHOWN_CALIBRATION_METHODS, type ShownCalibrationMethod } from '../../src/engine/learn/shownCalibration';
import { calibrationReport } from './calibrationReport';
import { replayDisplayMap } from './displayMapReplay';
import type { ShownDecisionRow } from './learnReplay';

const pct = (v: number) => (100 * v).toFixed(2);

async function main([methodList, ...files]: readonly string[]): Promise<void> {
  const methods = (methodList ?? '').split(',') as ShownCalibrationMethod[];
  if (files.length === 0 || !methods.every((m) => SHOWN_CALIBRATION_METHODS.includes(m))) {
    process.stderr.write(`usage: npx tsx bench/evalCoco/displayMapReplayCli.ts METHOD[,METHOD…] RESULTS.json… (methods: ${SHOWN_CALIBRATION_METHODS.join(', ')})\n`);
    process.exit(2);
  }
  const runs = await Promise.all(files.map(async (f) => (JSON.parse(await readFile(f, 'utf8')) as { decisions: ShownDecisionRow[] }).decisions));
  for (const method of methods) {
    const replayed = runs.map((decisions) => replayDisplayMap(decisions, method));
    const perRun = replayed.map((decisions) => expectedCalibrationError(decisions).ece);
    const r = calibrationReport(replayed);
    process.stdout.write(
      `${method}: ECE ${perRun.map(pct).join(' / ')}, mean ${pct(perRun.reduce((s, v) => s + v, 0) / perRun.length)} %; pooled ${pct(r.pooled.ece)} %; ` +
        `early shown/right ${pct(r.early.meanProbability)}/${pct(r.early.accuracy)}, late ${pct(r.late.meanProbability)}/${pct(r.late.accuracy)}; ` +
        `bins ${r.pooled.bins.filter((b) => b.count).map((b) => `${b.from.toFixed(1)}:${b.count} ${pct(b.meanProbability)}/${pct(b.accuracy)}`).join(', ')}\n`,
    );
  }
}

void main(process.argv.slice(2));
