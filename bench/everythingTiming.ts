/**
 * Segment everything on a photo never seen before, 1024 px on its long side, as a person meets it:
 * from the decoded pixels to every proposal traced (encoder, detectors, decoder runs, outlines). Our
 * browser engine (a Web Worker, the bench page's slot) and our Node engine (onnxruntime-node with
 * the Node detectors, the server's and the CLI's path) take turns, one unmeasured warm-up of each;
 * every run gets its own photo so no cache answers.
 */
import type { Page } from 'playwright-core';
import { decodeImage } from '../src/engine/adapters/nodeImage';
import { loadNodeEngine, type ModelPrecision } from '../src/engine/adapters/ortNode';
import { loadNodeDetectors } from '../src/engine/adapters/textNode';
import { runEverything } from '../src/engine/everything/response';
import { newPhotos } from './serverStart';

export interface EverythingTimes {
  models: ModelPrecision;
  /** Pixels → proposals (ms), per run. */
  chromium: number[];
  node: number[];
  /** Proposals and decoder runs of each run (Chromium, then Node). */
  chromiumProposals: number[];
  nodeProposals: number[];
  decoderRuns: number[];
}

export async function everythingChromiumVsNode(
  page: Page,
  slot: ModelPrecision,
  imageBytes: Buffer,
  runs: number,
  rotate: <T>(round: number, steps: (() => Promise<T>)[]) => Promise<T[]>,
  log: (line: string) => void,
): Promise<EverythingTimes> {
  const photos = await newPhotos(imageBytes, 2 * runs + 2);
  for (const [i, photo] of photos.entries()) {
    await page.route(`**/bench-input/everything-${i}.jpg`, (route) =>
      route.fulfill({ body: photo, contentType: 'image/jpeg', headers: { 'Cross-Origin-Resource-Policy': 'same-origin' } }),
    );
  }
  const engine = await loadNodeEngine({ encoderPrecision: slot, decoderPrecision: slot });
  const detectors = await loadNodeDetectors();
  try {
    const times: EverythingTimes = { models: slot, chromium: [], node: [], chromiumProposals: [], nodeProposals: [], decoderRuns: [] };
    const chromium = (i: number) => page.evaluate(({ slot, u }) => window.maskwrightBench.ours.everything(slot, u), { slot, u: `/bench-input/everything-${i}.jpg` });
    const node = async (i: number) => {
      const image = await decodeImage(photos[i]);
      const t0 = performance.now();
      const { response, result } = await runEverything(engine, image, { imageId: `everything-${i}`, detectors });
      return { totalMs: performance.now() - t0, proposals: response.predictions.length, decoderRuns: result.decoderRuns };
    };
    await chromium(0);
    await node(1);
    for (let round = 0; round < runs; round++) {
      const [c, n] = await rotate<{ totalMs: number; proposals: number; decoderRuns: number }>(round, [() => chromium(2 + 2 * round), () => node(3 + 2 * round)]);
      times.chromium.push(c.totalMs);
      times.node.push(n.totalMs);
      times.chromiumProposals.push(c.proposals);
      times.nodeProposals.push(n.proposals);
      times.decoderRuns.push(c.decoderRuns, n.decoderRuns);
      log(`segment everything, round ${round}: Chromium ${c.totalMs.toFixed(0)} ms (${c.proposals} proposals, ${c.decoderRuns} decoder runs), Node ${n.totalMs.toFixed(0)} ms (${n.proposals} proposals, ${n.decoderRuns} decoder runs)`);
    }
    return times;
  } finally {
    await engine.release();
  }
}
