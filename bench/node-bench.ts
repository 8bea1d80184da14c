/**
 * The Node leg of `npm run bench`: our engine on onnxruntime-node, same stages as in the browser.
 */
import { loadNodeEngine } from '../src/engine/adapters/ort-node';
import { maskToPolygons } from '../src/engine/polygons';
import type { BackendInfo } from '../src/engine/runtime';
import type { RgbaImage } from '../src/engine/types';
import type { BenchClick } from './clicks';

export interface NodeBenchOptions {
  image: RgbaImage;
  clicks: BenchClick[];
  encoderRuns: number;
  warmupClicks: number;
  multimask: boolean;
  threads?: number;
  log: (line: string) => void;
}

export interface NodeBenchResult {
  backend: BackendInfo;
  samples: {
    preprocessMs: number[];
    encoderMs: number[];
    embedTotalMs: number[];
    decoderMs: number[];
    postprocessMs: number[];
    polygonMs: number[];
    clickToPolygonMs: number[];
  };
  candidatesPerClick: number[];
}

export async function runNodeBench(options: NodeBenchOptions): Promise<NodeBenchResult> {
  const engine = await loadNodeEngine({ threads: options.threads });
  const samples: NodeBenchResult['samples'] = {
    preprocessMs: [],
    encoderMs: [],
    embedTotalMs: [],
    decoderMs: [],
    postprocessMs: [],
    polygonMs: [],
    clickToPolygonMs: [],
  };
  try {
    let imageKey = '';
    for (let run = 0; run <= options.encoderRuns; run++) {
      engine.forget();
      const t0 = performance.now();
      const embedded = await engine.embed(options.image, 'bench-image');
      const total = performance.now() - t0;
      imageKey = embedded.imageKey;
      if (run === 0) continue; // warm-up
      samples.preprocessMs.push(embedded.timings.preprocessMs);
      samples.encoderMs.push(embedded.timings.encoderMs);
      samples.embedTotalMs.push(total);
      options.log(`node: encoder run ${run}: ${embedded.timings.encoderMs.toFixed(0)} ms`);
    }
    const candidatesPerClick: number[] = [];
    const clicks = [...options.clicks.slice(0, options.warmupClicks), ...options.clicks];
    for (let i = 0; i < clicks.length; i++) {
      const t0 = performance.now();
      const predicted = await engine.predict(imageKey, { points: [clicks[i]] }, { multimask: options.multimask });
      const t1 = performance.now();
      for (const candidate of predicted.candidates) maskToPolygons(candidate.mask);
      const t2 = performance.now();
      if (i < options.warmupClicks) continue;
      samples.decoderMs.push(predicted.timings.decoderMs);
      samples.postprocessMs.push(predicted.timings.postprocessMs);
      samples.polygonMs.push(t2 - t1);
      samples.clickToPolygonMs.push(t2 - t0);
      candidatesPerClick.push(predicted.candidates.length);
    }
    options.log(`node: ${samples.clickToPolygonMs.length} clicks done`);
    return { backend: engine.backend, samples, candidatesPerClick };
  } finally {
    await engine.release();
  }
}
