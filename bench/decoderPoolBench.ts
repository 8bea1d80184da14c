/**
 * The box decoder runs of segment everything's bulk rule, on the main thread (onnxruntime-node, N
 * intra-op threads: the peer) against the pooled decoder (N worker threads of one thread each, asked
 * N ahead), side by side in turns on one real photo (coffee.png) and the same box prompts. Each turn
 * decodes every prompt once per configuration; the table gives the median and the best turn's ms a run,
 * the best being the turn least slowed by other processes on a shared machine.
 *
 *   npx tsx bench/decoderPoolBench.ts [--threads 2] [--turns 6] [--prompts 24] [--decoder fp32|int8]
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { sharedPath } from '../test/support/sharedData';
import { decodeImage } from '../src/engine/adapters/nodeImage';
import { loadNodeEngine } from '../src/engine/adapters/ortNode';
import type { SegmentationEngine } from '../src/engine/engine';
import { askAhead } from '../src/engine/everything/askAhead';
import type { VisualPrompt } from '../src/engine/types';

const { values } = parseArgs({ options: { threads: { type: 'string' }, turns: { type: 'string' }, prompts: { type: 'string' }, decoder: { type: 'string' } } });
const threads = Number(values.threads ?? 2);
const turns = Number(values.turns ?? 6);
const promptCount = Number(values.prompts ?? 24);
const decoderPrecision = values.decoder === 'int8' ? 'int8' : 'fp32';

const image = await decodeImage(readFileSync(sharedPath('samples/coffee.png')));
// Boxes spread over the photo, of the sizes a detector gives: the decoder's work does not depend on the content.
const prompts: VisualPrompt[] = Array.from({ length: promptCount }, (_, k) => {
  const width = 30 + ((k * 37) % 200);
  const height = 30 + ((k * 53) % 150);
  return { box: { x: width / 2 + ((k * 71) % (image.width - width)), y: height / 2 + ((k * 43) % (image.height - height)), width, height } };
});

const configurations: { name: string; engine: SegmentationEngine }[] = [
  { name: `main thread, ${threads} intra-op threads`, engine: await loadNodeEngine({ threads, decoderPrecision }) },
  { name: `${threads} decoder workers × 1 thread, asked ${threads} ahead`, engine: await loadNodeEngine({ threads, decoderPrecision, decoderWorkers: threads }) },
];
for (const { engine } of configurations) await engine.embed(image, 'coffee');

const msPerRun = configurations.map(() => [] as number[]);
const load: number[] = [loadavg()[0]];
for (let turn = 0; turn < turns; turn++) {
  for (const [c, { engine }] of configurations.entries()) {
    // A new key each turn would re-encode; the engine keeps only its last few decodes, so vary the prompts instead.
    const turnPrompts = prompts.map((p) => ({ box: { ...p.box!, x: p.box!.x + turn } }));
    const answers = askAhead(
      turnPrompts.map((prompt) => () => engine.decodeTokens('coffee', prompt)),
      engine.decodeConcurrency,
    );
    const t0 = performance.now();
    for (let k = 0; k < turnPrompts.length; k++) await answers.next();
    msPerRun[c].push((performance.now() - t0) / turnPrompts.length);
  }
  process.stderr.write(`turn ${turn + 1}/${turns}: ${configurations.map((c, k) => `${c.name} ${msPerRun[k].at(-1)!.toFixed(1)} ms a run`).join('; ')}\n`);
}
load.push(loadavg()[0]);
for (const { engine } of configurations) await engine.release();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = configurations.map((c, k) => ({ configuration: c.name, medianMsPerRun: median(msPerRun[k]), bestMsPerRun: Math.min(...msPerRun[k]) }));
console.log(`\n| decoder (${decoderPrecision}, ${promptCount} box prompts, ${turns} turns) | median ms a run | best turn, ms a run |\n|---|---|---|`);
for (const row of rows) console.log(`| ${row.configuration} | ${row.medianMsPerRun.toFixed(1)} | ${row.bestMsPerRun.toFixed(1)} |`);
console.log(`\nload average (1 min) at start ${load[0].toFixed(1)}, at end ${load[1].toFixed(1)} on the machine's cores (other processes slow every figure above)`);
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/decoderPool.json', JSON.stringify({ threads, turns, prompts: promptCount, decoderPrecision, load, rows, msPerRun }, null, 2));
