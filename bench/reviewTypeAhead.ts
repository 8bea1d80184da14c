/**
 * Keys to give a proposal in Review a class, with the type-ahead picker against keys alone before it
 * (C then a digit: the first nine classes only). For each class of a list, the fewest keys: "/",
 * the shortest prefix of its name after which arrows reach it soonest, the arrows, Enter.
 *
 *   npx tsx bench/reviewTypeAhead.ts [--classes FILE.json] [--out FILE.json]
 *
 * Without --classes the list is COCO's 80 names, in the detector's order. Pure computation, no model.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ClassDef } from '../src/annotations/annotation';
import { matchClasses } from '../src/app/state/classMatch';
import { COCO_CLASSES } from '../src/engine/text/cocoClasses';

const argument = (name: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};

/** "/", then `typed`, then arrows to the class's place among the matches, then Enter. */
function fewestKeys(classes: readonly ClassDef[], target: ClassDef): { keys: number; typed: string } {
  let best = { keys: Infinity, typed: '' };
  const name = target.name.toLowerCase();
  for (let length = 0; length <= name.length; length++) {
    const typed = name.slice(0, length);
    const place = matchClasses(classes, typed).classes.findIndex((c) => c.id === target.id);
    if (place < 0) continue;
    const keys = 1 + length + place + 1;
    if (keys < best.keys) best = { keys, typed };
  }
  return best;
}

const names: string[] = argument('--classes') ? JSON.parse(readFileSync(argument('--classes')!, 'utf8')) : [...COCO_CLASSES];
const classes: ClassDef[] = names.map((name, i) => ({ id: i + 1, name, color: '#fff' }));
const rows = classes.map((c, i) => ({ name: c.name, ...fewestKeys(classes, c), keysBefore: i < 9 ? 2 : null }));
const sorted = rows.map((r) => r.keys).sort((a, b) => a - b);
const mean = sorted.reduce((sum, k) => sum + k, 0) / sorted.length;
const summary = {
  classes: rows.length,
  typeAhead: { reachable: rows.length, meanKeys: Number(mean.toFixed(2)), medianKeys: sorted[Math.floor(sorted.length / 2)], maxKeys: sorted[sorted.length - 1] },
  keysBefore: { reachable: rows.filter((r) => r.keysBefore !== null).length, keys: 2 },
};

console.log(`Keys to give a proposal one of ${rows.length} classes in Review`);
console.log('| | classes reachable by keys | mean keys | median | max |');
console.log('|---|---|---|---|---|');
console.log(`| C + digit (before) | ${summary.keysBefore.reachable} | 2 | 2 | 2 |`);
console.log(`| type-ahead: / + letters + arrows + Enter | ${summary.typeAhead.reachable} | ${summary.typeAhead.meanKeys} | ${summary.typeAhead.medianKeys} | ${summary.typeAhead.maxKeys} |`);
const worst = [...rows].sort((a, b) => b.keys - a.keys).slice(0, 5);
console.log(`Most keys: ${worst.map((r) => `${r.name} ${r.keys} ("${r.typed}")`).join(', ')}`);
const out = argument('--out');
if (out) {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify({ summary, rows }, null, 2));
}
