/**
 * `npm run bench:malloc`: what `MALLOC_MMAP_THRESHOLD_=131072` (set by `npm run serve`, so that
 * glibc gives a large export's freed memory back) costs inference (issue 39). With a fixed
 * threshold every allocation past 128 KiB is its own mmap, and unmapped when freed; the engine's
 * tensors are such allocations. The same engine work runs in child processes started alternately
 * with and without the setting (glibc reads it at start): the encoder on chelsea.png (a new
 * embedding each run) and the decoder with a new point each call on the cached embedding, one
 * look. Prints the medians per setting, each child's p50s, and the load average.
 *
 *   npm run bench:malloc -- [--rounds 3] [--encoder-runs 5] [--decoder-runs 40]
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { decodeImage } from '../src/engine/adapters/nodeImage';
import { loadNodeEngine } from '../src/engine/adapters/ortNode';
import { runPvs } from '../src/engine/pvs';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const log = (line: string) => void process.stderr.write(`[bench:malloc] ${line}\n`);
const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    'encoder-runs': { type: 'string', default: '5' },
    'decoder-runs': { type: 'string', default: '40' },
    child: { type: 'boolean', default: false },
  },
});

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

interface ChildResult {
  encoderP50Ms: number;
  decoderP50Ms: number;
}

/** One process's engine work: the p50 of the encoder and of the decoder. */
async function measure(): Promise<ChildResult> {
  const engine = await loadNodeEngine({});
  const image = await decodeImage(readFileSync(join(repoRoot, 'public/samples/chelsea.png')));
  const encoder: number[] = [];
  for (let i = 0; i <= Number(args['encoder-runs']); i++) {
    engine.forget();
    const started = performance.now();
    await engine.embed(image, 'malloc-bench');
    // The first run loads and optimises the graph: start-up, not the per-call cost.
    if (i > 0) encoder.push(performance.now() - started);
  }
  const decoder: number[] = [];
  for (let i = 0; i <= Number(args['decoder-runs']); i++) {
    const point = { x: 40 + ((i * 37) % (image.width - 80)), y: 40 + ((i * 53) % (image.height - 80)), positive: true };
    const started = performance.now();
    await runPvs(engine, image, { points: [point], imageId: 'malloc-bench' }, { multimask: false, mirrorAverage: false });
    if (i > 0) decoder.push(performance.now() - started);
  }
  await engine.release();
  return { encoderP50Ms: median(encoder), decoderP50Ms: median(decoder) };
}

function child(threshold: boolean): ChildResult {
  const env = { ...process.env };
  delete env.MALLOC_MMAP_THRESHOLD_;
  if (threshold) env.MALLOC_MMAP_THRESHOLD_ = '131072';
  const run = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', '--encoder-runs', args['encoder-runs']!, '--decoder-runs', args['decoder-runs']!], { cwd: repoRoot, env, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`the child failed: ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').pop()!) as ChildResult;
}

if (args.child) {
  console.log(JSON.stringify(await measure()));
} else {
  log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} on ${cpus().length} cores`);
  const results: Record<'threshold' | 'glibcDefault', ChildResult[]> = { threshold: [], glibcDefault: [] };
  for (let round = 0; round < Number(args.rounds); round++) {
    // Alternating, so that a change of the machine's load falls on both settings.
    for (const threshold of round % 2 ? [false, true] : [true, false]) {
      const result = child(threshold);
      results[threshold ? 'threshold' : 'glibcDefault'].push(result);
      log(`round ${round + 1}, ${threshold ? 'MALLOC_MMAP_THRESHOLD_=131072' : "glibc's default"}: encoder p50 ${result.encoderP50Ms.toFixed(1)} ms, decoder p50 ${result.decoderP50Ms.toFixed(1)} ms (load ${loadavg()[0].toFixed(2)})`);
    }
  }
  console.log('| setting | encoder p50 (median of runs) | decoder p50 (median of runs) | runs |');
  console.log('|---|---:|---:|---:|');
  for (const [name, rows] of Object.entries(results)) {
    console.log(`| ${name === 'threshold' ? 'MALLOC_MMAP_THRESHOLD_=131072' : "glibc's default"} | ${median(rows.map((r) => r.encoderP50Ms)).toFixed(1)} ms | ${median(rows.map((r) => r.decoderP50Ms)).toFixed(1)} ms | ${rows.length} |`);
  }
  log(`load average at the end ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
}
