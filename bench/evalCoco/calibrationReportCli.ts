/**
 * `npx tsx bench/evalCoco/calibrationReportCli.ts RESULTS.json…`: calibrationReport.ts over learn eval
 * runs of one dataset, as text.
 */
import { readFile } from 'node:fs/promises';
import { calibrationReport } from './calibrationReport';
import type { ShownDecisionRow } from './learnReplay';

const pct = (v: number) => (100 * v).toFixed(1);

async function main(files: readonly string[]): Promise<void> {
  if (files.length === 0) {
    process.stderr.write('usage: npx tsx bench/evalCoco/calibrationReportCli.ts RESULTS.json… (learn eval results with "decisions")\n');
    process.exit(2);
  }
  const runs = await Promise.all(files.map(async (f) => (JSON.parse(await readFile(f, 'utf8')) as { decisions?: ShownDecisionRow[] }).decisions));
  runs.forEach((decisions, i) => {
    if (!decisions) throw new Error(`${files[i]}: no "decisions" (a learn eval from before they were kept)`);
  });
  const r = calibrationReport(runs as ShownDecisionRow[][]);
  const lines = [
    `per run: ECE ${r.runs.map((x) => pct(x.ece)).join(' / ')} %; if calibrated ${r.runs.map((x) => pct(x.floor)).join(' / ')} % (decisions ${r.runs.map((x) => x.decisions).join(' / ')})`,
    `mean of runs: ECE ${pct(r.meanEce)} %, if calibrated ${pct(r.meanFloor)} %; calibrated probabilities show at least this ${pct(r.chanceIfCalibrated)} % of the time`,
    `pooled: ECE ${pct(r.pooled.ece)} % on ${r.pooled.decisions} decisions, if calibrated ${pct(r.pooled.floor)} %`,
    `early photos: ECE ${pct(r.early.ece)} %, shown ${pct(r.early.meanProbability)} %, right ${pct(r.early.accuracy)} % (${r.early.decisions}); late photos: ECE ${pct(r.late.ece)} %, shown ${pct(r.late.meanProbability)} %, right ${pct(r.late.accuracy)} % (${r.late.decisions})`,
    '',
    '| shown probability | decisions (pooled) | mean shown | right |',
    '|---|---|---|---|',
    ...r.pooled.bins.filter((b) => b.count).map((b) => `| ${b.from.toFixed(1)}–${b.to.toFixed(1)} | ${b.count} | ${pct(b.meanProbability)} | ${pct(b.accuracy)} |`),
    '',
    `classes with the most decisions (shown / right): ${r.byClass.slice(0, 8).map((c) => `${c.classId} ${c.decisions} ${pct(c.meanProbability)}/${pct(c.accuracy)}`).join('; ')}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

void main(process.argv.slice(2));
