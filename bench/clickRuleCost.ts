/**
 * `npx tsx bench/clickRuleCost.ts [--image FILE] [--width 1024] [--clicks 12] [--threads 1]`
 *
 * Cost per click in Node of click rules, taking turns on the same clicks and the same cached
 * embedding: SAM's answer as it was, the click-aligned mask prompt and the photo-guided (edge-aware)
 * upsampling (the bench's rules, eval/rules/) and the engine's mirror averaging (its second encoder run, for the mirror image, is paid
 * once before the clicks and reported apart). Each click pair is a first click and a second, negative one fed the first
 * answer's logits, as in the studio; single-mask answers. Prints p50/p90 of the decoder, of what
 * follows it (logits → mask, ranking), and of the whole `predict` call (which includes the mask
 * prompt's alignment before the decoder).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { loadNodeEngine } from '../src/engine/adapters/ortNode';
import { alignMaskPrompt } from './eval/rules/clickAlignedMaskPrompt';
import { edgeAwareUpsampling } from './eval/rules/edgeAwareUpsample';
import { sharedPath } from '../test/support/sharedData';
import { gridClicks } from './clicks';

const { values } = parseArgs({
  options: {
    image: { type: 'string', default: sharedPath('samples/coffee.png') },
    width: { type: 'string' },
    clicks: { type: 'string', default: '12' },
    threads: { type: 'string' },
  },
});

const quantile = (xs: number[], q: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))];

async function main(): Promise<void> {
  const resize = values.width ? { width: Number(values.width) } : {};
  const { data, info } = await sharp(readFileSync(values.image!)).resize(resize).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const image = { width: info.width, height: info.height, data: new Uint8Array(data) };
  const engine = await loadNodeEngine({ threads: values.threads ? Number(values.threads) : undefined });
  const { imageKey } = await engine.embed(image, 'upsampling-cost');
  const mirrorEncoder = await engine.embed(image, 'upsampling-cost', { mirrored: true });
  const rules = [
    { name: 'before: bilinear, mask prompt as fed back', options: { mirrorAverage: false } },
    { name: 'click-aligned mask prompt', options: { mirrorAverage: false, rule: alignMaskPrompt } },
    { name: 'edge-aware upsampling', options: { mirrorAverage: false, rule: edgeAwareUpsampling((key) => (key === imageKey ? image : undefined)) } },
    { name: 'mirror averaging', options: { mirrorAverage: true } },
  ] as const;
  const samples = new Map(rules.map((r) => [r.name, { decoderMs: [] as number[], postprocessMs: [] as number[], predictMs: [] as number[] }]));
  const clicks = gridClicks(image.width, image.height, Number(values.clicks));
  const warmUp = 4;
  for (const [i, click] of [...clicks.slice(0, warmUp), ...clicks].entries()) {
    for (const rule of rules) {
      const t0 = performance.now();
      const first = await engine.predict(imageKey, { points: [click] }, { multimask: false, ...rule.options });
      const t1 = performance.now();
      const second = { x: Math.min(image.width - 1, click.x + 9), y: click.y, positive: false };
      const previous = first.candidates[0]?.lowResLogits;
      const next = await engine.predict(imageKey, { points: [click, second], maskInput: previous }, { multimask: false, ...rule.options });
      const t2 = performance.now();
      if (i < warmUp) continue;
      const s = samples.get(rule.name)!;
      for (const [result, ms] of [[first, t1 - t0], [next, t2 - t1]] as const) {
        s.decoderMs.push(result.timings.decoderMs);
        s.postprocessMs.push(result.timings.postprocessMs);
        s.predictMs.push(ms);
      }
    }
  }
  await engine.release();
  process.stdout.write(
    `${image.width}×${image.height}, ${clicks.length * 2} decodes per rule, ${engine.backend.name} × ${engine.backend.threads} threads; ` +
      `mirror image's encoder run (once per photo): ${mirrorEncoder.timings.encoderMs.toFixed(0)} ms\n\n` +
      '| rule | decoder p50 / p90 ms | logits → masks p50 / p90 ms | whole predict p50 / p90 ms |\n|---|---:|---:|---:|\n' +
      rules
        .map((r) => {
          const s = samples.get(r.name)!;
          const f = (xs: number[]) => `${quantile(xs, 0.5).toFixed(1)} / ${quantile(xs, 0.9).toFixed(1)}`;
          return `| ${r.name} | ${f(s.decoderMs)} | ${f(s.postprocessMs)} | ${f(s.predictMs)} |`;
        })
        .join('\n') +
      '\n',
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
