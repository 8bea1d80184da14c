/**
 * `npx tsx bench/eval/compare.ts bench/results/eval-grabcut*.json`: one markdown row per results file
 * (the run's options, engine source fingerprint and summary), to set refinements side by side.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

interface ResultsFile {
  dataset: string;
  optionsDescription: string;
  engineSourceHash?: string;
  summary: { images: number; noc85: number; noc90: number; nof85: number; nof90: number; miou: Record<string, number>; boxMiou?: number };
}

const files = process.argv.slice(2);
if (files.length === 0) {
  process.stderr.write('usage: npx tsx bench/eval/compare.ts RESULTS.json...\n');
  process.exit(2);
}
const pct = (v: number | undefined) => (v === undefined ? '–' : (v * 100).toFixed(1));
const lines = [
  '| run | images | NoC@85 | NoC@90 | NoF@85 | NoF@90 | mIoU@1 | mIoU@3 | mIoU@5 | box mIoU | engine | options |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|',
];
for (const file of files) {
  const r = JSON.parse(readFileSync(file, 'utf8')) as ResultsFile;
  const s = r.summary;
  lines.push(
    `| ${basename(file, '.json')} | ${s.images} | ${s.noc85.toFixed(2)} | ${s.noc90.toFixed(2)} | ${s.nof85} | ${s.nof90} | ` +
      `${pct(s.miou[1])} | ${pct(s.miou[3])} | ${pct(s.miou[5])} | ${pct(s.boxMiou)} | ${r.engineSourceHash ?? '?'} | ${r.optionsDescription} |`,
  );
}
process.stdout.write(`${lines.join('\n')}\n`);
