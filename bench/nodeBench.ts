/**
 * The Node leg of `npm run bench`: our engine on onnxruntime-node, same stages as in the browser,
 * one step at a time so the bench can interleave it with the Chromium legs (same machine load).
 */
import { loadNodeEngine, type ModelPrecision } from '../src/engine/adapters/ortNode';
import { maskToPolygons } from '../src/engine/polygons';
import type { BackendInfo } from '../src/engine/runtime';
import type { RgbaImage } from '../src/engine/types';
import type { BenchClick } from './clicks';
import type { ClickSample, EmbedSample } from './browser/page';

export interface NodeLegOptions {
  image: RgbaImage;
  multimask: boolean;
  threads?: number;
  encoderPrecision?: ModelPrecision;
  decoderPrecision?: ModelPrecision;
  /** Mirror averaging (the studio's mirror pass): the mirror image embedded too, each click decoded on both. */
  mirrorAverage?: boolean;
}

export interface NodeLeg {
  backend: BackendInfo;
  /** Forgets the image, then embeds it again: one encoder run. */
  embed(): Promise<EmbedSample>;
  /** One click on the last embedding → masks → polygons of every candidate. */
  click(click: BenchClick): Promise<ClickSample>;
  release(): Promise<void>;
}

export async function startNodeLeg(options: NodeLegOptions): Promise<NodeLeg> {
  const engine = await loadNodeEngine({ threads: options.threads, encoderPrecision: options.encoderPrecision, decoderPrecision: options.decoderPrecision });
  let imageKey: string | undefined;
  return {
    backend: engine.backend,
    async embed() {
      engine.forget();
      const t0 = performance.now();
      const embedded = await engine.embed(options.image, 'bench-image', { mirrored: options.mirrorAverage });
      imageKey = embedded.imageKey;
      return { totalMs: performance.now() - t0, preprocessMs: embedded.timings.preprocessMs, encoderMs: embedded.timings.encoderMs };
    },
    async click(click) {
      if (!imageKey) throw new Error('embed() first');
      // The studio's mirror pass follows the click's quick answer to the same prompt (untimed here).
      if (options.mirrorAverage) await engine.predict(imageKey, { points: [click] }, { multimask: options.multimask, mirrorAverage: false });
      const t0 = performance.now();
      const predicted = await engine.predict(imageKey, { points: [click] }, { multimask: options.multimask, mirrorAverage: options.mirrorAverage === true });
      const t1 = performance.now();
      for (const candidate of predicted.candidates) maskToPolygons(candidate.mask);
      const t2 = performance.now();
      return {
        totalMs: t2 - t0,
        decoderMs: predicted.timings.decoderMs,
        postprocessMs: predicted.timings.postprocessMs,
        polygonMs: t2 - t1,
        candidates: predicted.candidates.length,
      };
    },
    release: () => engine.release(),
  };
}
