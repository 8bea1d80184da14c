/**
 * `npx tsx bench/evalCoco/acceptAllRulesCli.ts RESULTS.json…`: the candidate "accept all" rules
 * (acceptAllRules.ts) checked on the next photo over learn eval runs of one dataset, as a table.
 */
import { readFile } from 'node:fs/promises';
import { CANDIDATE_RULES, checkOnNextPhoto, type NextPhotoTally, type SessionDecision } from './acceptAllRules';

async function main(files: readonly string[]): Promise<void> {
  if (files.length === 0) {
    process.stderr.write('usage: npx tsx bench/evalCoco/acceptAllRulesCli.ts RESULTS.json… (learn eval results with "decisions")\n');
    process.exit(2);
  }
  const runs = await Promise.all(files.map(async (f) => JSON.parse(await readFile(f, 'utf8')) as { images: number; seedImages: number; decisions?: SessionDecision[] }));
  for (const [i, run] of runs.entries()) if (!run.decisions) throw new Error(`${files[i]}: no "decisions" (a learn eval from before they were kept)`);
  const lines = ['| rule | let through | right | precision on the next photo | photos with a default | per run (right/let through) |', '|---|---|---|---|---|---|'];
  for (const [name, rule] of Object.entries(CANDIDATE_RULES)) {
    const each = runs.map((run) => checkOnNextPhoto(rule, run.decisions!, run.seedImages, run.images));
    const sum = (k: keyof NextPhotoTally) => each.reduce((s, t) => s + t[k], 0);
    const precision = sum('letThrough') ? `${((100 * sum('right')) / sum('letThrough')).toFixed(1)} %` : '–';
    lines.push(`| ${name} | ${sum('letThrough')} | ${sum('right')} | ${precision} | ${sum('photosWithDefault')} of ${sum('photos')} | ${each.map((t) => `${t.right}/${t.letThrough}`).join(' ')} |`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

void main(process.argv.slice(2));
