/**
 * `npx tsx bench/textBench.ts [--image FILE] [--runs 5] [--prompt cup]`
 *
 * Text prompt speed in Node (onnxruntime-node), detectors and SAM warm, the embedding cached (as in
 * the studio after the first click): one detector (CenterNet, before issue 17) against the pooled
 * detectors (CenterNet + COCO-SSD), same photo scaled to 1024 px wide, same prompt, alternating.
 * Prints p50 per stage and writes bench/results/textBench.json.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { loadNodeEngine } from '../src/engine/adapters/ortNode';
import { loadNodeDetectors } from '../src/engine/adapters/textNode';
import { TextPipeline } from '../src/engine/text/pipeline';
import { sharedPath } from '../test/support/sharedData';

const { values } = parseArgs({
  options: {
    image: { type: 'string', default: sharedPath('samples/coffee.png') },
    runs: { type: 'string', default: '5' },
    prompt: { type: 'string', default: 'cup' },
    threads: { type: 'string' },
  },
});

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const { data, info } = await sharp(readFileSync(values.image!)).resize({ width: 1024 }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const image = { width: info.width, height: info.height, data: new Uint8Array(data) };
  const threads = values.threads ? Number(values.threads) : undefined;
  const engine = await loadNodeEngine({ threads });
  const detectors = await loadNodeDetectors({ threads });
  const variants = [
    { name: 'CenterNet alone (before)', pipeline: new TextPipeline(engine, detectors[0]) },
    { name: 'CenterNet + COCO-SSD pooled (after)', pipeline: new TextPipeline(engine, detectors) },
  ];
  await engine.embed(image, 'text-bench');
  for (const v of variants) await v.pipeline.run(image, [values.prompt!], 'text-bench'); // warm-up
  const samples = variants.map(() => ({ detectorMs: [] as number[], decoderMs: [] as number[], totalMs: [] as number[], instances: 0 }));
  for (let r = 0; r < Number(values.runs); r++) {
    for (const [k, v] of variants.entries()) {
      const { timings, results } = await v.pipeline.run(image, [values.prompt!], 'text-bench');
      samples[k].detectorMs.push(timings.detectorMs);
      samples[k].decoderMs.push(timings.decoderMs);
      samples[k].totalMs.push(timings.totalMs);
      samples[k].instances = results[0].instances.length;
    }
  }
  const rows = variants.map((v, k) => ({
    variant: v.name,
    detectorsP50Ms: median(samples[k].detectorMs),
    samDecoderP50Ms: median(samples[k].decoderMs),
    totalP50Ms: median(samples[k].totalMs),
    instances: samples[k].instances,
  }));
  const table = [
    `Text prompt "${values.prompt}" on ${image.width}×${image.height}, embedding cached, ${values.runs} runs each, ${engine.backend.name}`,
    '',
    '| variant | detectors p50 ms | SAM decoder p50 ms | total p50 ms | instances |',
    '|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.variant} | ${r.detectorsP50Ms.toFixed(0)} | ${r.samDecoderP50Ms.toFixed(0)} | ${r.totalP50Ms.toFixed(0)} | ${r.instances} |`),
  ].join('\n');
  process.stdout.write(`${table}\n`);
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(join('bench/results', 'text-bench.json'), `${JSON.stringify({ image: values.image, width: image.width, height: image.height, rows }, null, 2)}\n`);
  await engine.release();
  for (const d of detectors) await d.release();
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
