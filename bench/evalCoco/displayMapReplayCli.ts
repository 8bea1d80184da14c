/**
 * `npx tsx bench/evalCoco/displayMapReplayCli.ts [--out DIR] METHOD[,METHOD…] RESULTS.json…`: the ECE each
 * display map (displayMapReplay.ts) would have had on learn eval runs of one dataset, per run and their
 * mean, with calibrationReport.ts's reliability for each. With --out, each replayed run is written as
 * DIR/METHOD-NAME (its decisions, and what acceptAllRulesCli.ts reads besides).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { expectedCalibrationError } from '../../src/engine/learn/calibration';
import { SHOWN_CALIBRATION_METHODS, type ShownCalibrationMethod } from '../../src/engine/learn/shownCalibration';
import { calibrationReport } from './calibrationReport';
import { replayDisplayMap } from './displayMapReplay';
import type { ShownDecisionRow } from './learnReplay';

const pct = (v: number) => (100 * v).toFixed(2);

async function main(args: readonly string[]): Promise<void> {
  const outDir = args[0] === '--out' ? args[1] : undefined;
  const [methodList, ...files] = outDir === undefined ? args : args.slice(2);
  const methods = (methodList ?? '').split(',') as ShownCalibrationMethod[];
  if (files.length === 0 || !methods.every((m) => SHOWN_CALIBRATION_METHODS.includes(m))) {
    process.stderr.write(`usage: npx tsx bench/evalCoco/displayMapReplayCli.ts METHOD[,METHOD…] RESULTS.json… (methods: ${SHOWN_CALIBRATION_METHODS.join(', ')})\n`);
    process.exit(2);
  }
  const results = await Promise.all(files.map(async (f) => JSON.parse(await readFile(f, 'utf8')) as { images: number; seedImages: number; decisions: ShownDecisionRow[] }));
  const runs = results.map((r) => r.decisions);
  if (outDir !== undefined) await mkdir(outDir, { recursive: true });
  for (const method of methods) {
    const replayed = runs.map((decisions) => replayDisplayMap(decisions, method));
    if (outDir !== undefined) {
      await Promise.all(replayed.map((decisions, i) => writeFile(join(outDir, `${method}-${basename(files[i])}`), JSON.stringify({ images: results[i].images, seedImages: results[i].seedImages, decisions }))));
    }
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
