/// <reference lib="webworker" />
/**
 * The browser's engine, started inside its Web Worker (engine.worker.ts serves it): the SAM models
 * fetched with progress (SHA-256 checked, Cache API), onnxruntime-web on the fastest working backend,
 * the decoder warmed up, and the text-prompt detectors loaded on the first prompt that needs them.
 */
import { createWebRuntime, DEFAULT_WEBGPU_TIMEOUT_MS, withTimeout, type WebBackendPreference } from '../adapters/ortWeb';
import { SegmentationEngine } from '../engine';
import type { Runtime } from '../runtime';
import { DETECTORS, samManifestEntries } from '../catalog';
import { createDetector } from '../text/detectors';
import type { DecoderPrecision, EncoderPrecision, ModelProgress } from '../service/api';
import { EngineService } from '../service/engineService';
import type { Call } from '../service/transport';
import { loadManifest, loadModel, type ManifestEntry } from './modelLoader';
import { TextService, type DetectorLoader } from './textService';

export interface WebEngineOptions {
  /** Absolute URL where the models and manifest.json are served. */
  modelBaseUrl: string;
  ortBaseUrl?: string;
  backend: WebBackendPreference;
  fallbackReason?: string;
  embeddingCacheSize?: number;
  webGpuStartupTimeoutMs?: number;
  allowFallbackAdapter?: boolean;
  decoderPrecision: DecoderPrecision;
  encoderPrecision: EncoderPrecision;
  /** The text-prompt detectors the worker may use, by name (ConceptDetector.name); absent: all. */
  textDetectors?: readonly string[];
  /** Default true: the decoder split into its per-image and per-click models, when the manifest lists them. */
  splitDecoder?: boolean;
  /** At most this many WASM threads (a background worker takes one, leaving the other cores to clicks). */
  maxThreads?: number;
  /** Default true: run the decoder a few times at start so the first click is fast; false for a worker that only embeds. */
  warmUpDecoder?: boolean;
}

/** Past the 5–6 runs V8 needs before the decoder path is fully optimised. */
const DECODER_WARM_UP_RUNS = 8;

/** Posts progress in steps of about 0.5 % (and always the first and last), not once per network chunk. */
function progressReporter(model: ModelProgress['model'], lifetime: Call<ModelProgress>): (loadedBytes: number, totalBytes: number) => void {
  let lastPosted = -Infinity;
  return (loadedBytes, totalBytes) => {
    const step = totalBytes > 0 ? totalBytes / 200 : 1 << 20;
    if (loadedBytes - lastPosted < step && loadedBytes !== totalBytes) return;
    lastPosted = loadedBytes;
    lifetime.onEvent?.({ model, loadedBytes, totalBytes });
  };
}

/** Loads the models and starts the engine; `lifetime` hears every model download, the detectors' later ones too. */
export async function startWebEngine(request: WebEngineOptions, lifetime: Call<ModelProgress>): Promise<EngineService> {
  const t0 = performance.now();
  const base = request.modelBaseUrl;
  const manifest = await loadManifest(base);
  // The split decoder when the deployment has it: the same masks, less work per click.
  const files = samManifestEntries(manifest, request);
  if (!files.encoder) throw new Error('this deployment has no int8 encoder (manifest.json lists no encoderInt8); run `npm run models`');
  if (!files.decoder) throw new Error('this deployment has no int8 decoder (manifest.json lists no decoderInt8); run `npm run models`');
  const fetchModel = (entry: { file: string } | ManifestEntry, progress?: ModelProgress['model']) =>
    loadModel(new URL(entry.file, base).href, 'sha256' in entry ? entry : undefined, progress && progressReporter(progress, lifetime));
  // The precompute model is small (under half a megabyte): its bytes are not worth a progress bar of their own.
  const [encoder, decoder, decoderPrecompute] = await Promise.all([
    fetchModel(files.encoder, 'encoder'),
    fetchModel(files.decoder, 'decoder'),
    files.decoderPrecompute ? fetchModel(files.decoderPrecompute) : undefined,
  ]);
  const t1 = performance.now();
  const runtime = await createWebRuntime({
    backend: request.backend,
    ortBaseUrl: request.ortBaseUrl,
    fallbackReason: request.fallbackReason,
    webGpuStartupTimeoutMs: request.webGpuStartupTimeoutMs,
    allowFallbackAdapter: request.allowFallbackAdapter,
    maxThreads: request.maxThreads,
  });
  const engine = await SegmentationEngine.create(
    runtime,
    { encoder: encoder.bytes, decoder: decoder.bytes, decoderPrecompute: decoderPrecompute?.bytes },
    { embeddingCacheSize: request.embeddingCacheSize },
  );
  if (engine.backend.name === 'webgpu') {
    // A GPU backend can accept sessions and then hang in its first run (seen on SwiftShader):
    // one small timed inference now, so a stuck GPU falls back to WASM instead of freezing the first click.
    await withTimeout(warmUp(engine), request.webGpuStartupTimeoutMs ?? DEFAULT_WEBGPU_TIMEOUT_MS, 'WebGPU warm-up inference');
  }
  // The first decoder runs after load are slow while V8 optimises the JS around them: pay that now.
  if (request.warmUpDecoder !== false) await engine.warmUpDecoder(DECODER_WARM_UP_RUNS);
  const detectorLoaders: DetectorLoader[] = DETECTORS.map((entry) => ({
    name: entry.name,
    vocabulary: entry.vocabulary,
    load: () => loadDetectorModel(manifest?.[entry.manifestKey] ?? { file: entry.file }, base, progressReporter(entry.model, lifetime), (bytes) => createDetector(entry.name, runtime, bytes)),
  }));
  const allowed = request.textDetectors;
  const text = new TextService(engine, allowed ? detectorLoaders.filter((l) => allowed.includes(l.name)) : detectorLoaders);
  // Written to the Cache API while the sessions were created; awaited so "ready" means "works offline next time".
  await Promise.all([encoder.stored, decoder.stored, decoderPrecompute?.stored]);
  const modelSource = encoder.fromCache && decoder.fromCache ? 'cache' : !encoder.fromCache && !decoder.fromCache ? 'network' : 'mixed';
  return new EngineService(engine, text, {
    backend: engine.backend,
    encoderModel: modelIdentity(files.encoder),
    startTimings: { downloadMs: t1 - t0, sessionMs: performance.now() - t1 },
    modelSource,
  });
}

/**
 * A detector for text prompts, fetched on the first prompt that names a concept it knows (most
 * sessions never type one, so start-up does not pay for it): with progress, verified against the
 * manifest and cached like the SAM models.
 */
async function loadDetectorModel<T>(
  entry: { file: string } | ManifestEntry,
  base: string,
  progress: (loadedBytes: number, totalBytes: number) => void,
  create: (bytes: Uint8Array) => Promise<T>,
): Promise<T> {
  const model = await loadModel(new URL(entry.file, base).href, 'sha256' in entry ? entry : undefined, progress);
  const detector = await create(model.bytes);
  await model.stored;
  return detector;
}

function modelIdentity(entry: { file: string; sha256?: string }): string {
  return `${entry.file}@${entry.sha256 ?? 'unverified'}`;
}

async function warmUp(active: SegmentationEngine): Promise<void> {
  const size = 64;
  const blank = { width: size, height: size, data: new Uint8Array(size * size * 4) };
  const { imageKey } = await active.embed(blank, '__maskwright-warm-up__');
  await active.predict(imageKey, { points: [{ x: size / 2, y: size / 2 }] }, { multimask: false, mirrorAverage: false });
  active.forget(imageKey);
}
