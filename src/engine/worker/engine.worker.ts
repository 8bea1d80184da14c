/// <reference lib="webworker" />
/**
 * Web Worker hosting the segmentation engine on onnxruntime-web, so the page stays responsive while
 * the encoder runs for seconds. Speaks the protocol in ./protocol.ts; start it with EngineWorkerClient.
 */
import '../../contract/jitlessZod';
import { BackendStartupTimeoutError, createWebRuntime, DEFAULT_WEBGPU_TIMEOUT_MS, withTimeout } from '../adapters/ortWeb';
import { SegmentationEngine } from '../engine';
import type { Runtime, Tensor } from '../runtime';
import { segmentationOptions } from '../options';
import { maskOutline } from '../polygons';
import { FaceDetector } from '../text/blazeFace';
import { CocoSsdDetector } from '../text/cocoSsd';
import { COCO_CLASSES } from '../text/cocoClasses';
import { ObjectDetector, type ConceptDetector } from '../text/detector';
import { OPEN_IMAGES_CONCEPTS, OpenImagesDetector } from '../text/openImagesSsd';
import { loadManifest, loadModel, type ManifestEntry, type ModelManifest } from './modelLoader';
import { masksOf, TextService, type DetectorLoader } from './textService';
import {
  serializeError,
  transferablesOf,
  type EmbeddingRecord,
  type ModelProgress,
  type PolygonCandidate,
  type PredictResponse,
  type RetraceResponse,
  type StartRequest,
  type WorkerMessage,
  type WorkerRequest,
} from './protocol';

declare const self: DedicatedWorkerGlobalScope;

let engine: SegmentationEngine | undefined;
/** Identity of the loaded encoder: embeddings from any other model are refused. */
let encoderModel = '';
/** Past the 5–6 runs V8 needs before the decoder path is fully optimised. */
const DECODER_WARM_UP_RUNS = 8;
let text: TextService | undefined;
let queue: Promise<void> = Promise.resolve();

function post(message: WorkerMessage, transfer: Transferable[] = []): void {
  self.postMessage(message, transfer);
}

/** Posts progress in steps of about 0.5 % (and always the first and last), not once per network chunk. */
function progressReporter(model: ModelProgress['model']): (loadedBytes: number, totalBytes: number) => void {
  let lastPosted = -Infinity;
  return (loadedBytes, totalBytes) => {
    const step = totalBytes > 0 ? totalBytes / 200 : 1 << 20;
    if (loadedBytes - lastPosted < step && loadedBytes !== totalBytes) return;
    lastPosted = loadedBytes;
    post({ type: 'progress', progress: { model, loadedBytes, totalBytes } });
  };
}

async function start(request: StartRequest): Promise<void> {
  const t0 = performance.now();
  const base = new URL(request.modelBaseUrl, self.location.href).href;
  const manifest = await loadManifest(base);
  const split = request.splitDecoder === false ? undefined : manifest?.decoderSplit;
  const splitClick = request.decoderPrecision === 'int8' ? split?.clickInt8 : split?.click;
  const files = {
    encoder: request.encoderPrecision === 'int8' ? manifest?.encoderInt8 : (manifest?.encoder ?? { file: 'sam-encoder.onnx' }),
    // The split decoder when the deployment has it: the same masks, less work per click.
    decoder: splitClick ?? (request.decoderPrecision === 'int8' ? manifest?.decoderInt8 : (manifest?.decoder ?? { file: 'sam-decoder.onnx' })),
  };
  if (!files.encoder) throw new Error('this deployment has no int8 encoder (manifest.json lists no encoderInt8); run `npm run models`');
  if (!files.decoder) throw new Error('this deployment has no int8 decoder (manifest.json lists no decoderInt8); run `npm run models`');
  const fetchModel = (entry: { file: string } | ManifestEntry, progress?: ModelProgress['model']) =>
    loadModel(new URL(entry.file, base).href, 'sha256' in entry ? entry : undefined, progress && progressReporter(progress));
  // The precompute model is small (under half a megabyte): its bytes are not worth a progress bar of their own.
  const [encoder, decoder, decoderPrecompute] = await Promise.all([
    fetchModel(files.encoder, 'encoder'),
    fetchModel(files.decoder, 'decoder'),
    splitClick && split ? fetchModel(split.precompute) : undefined,
  ]);
  const t1 = performance.now();
  encoderModel = modelIdentity(files.encoder);
  const runtime = await createWebRuntime({
    backend: request.backend,
    ortBaseUrl: request.ortBaseUrl,
    fallbackReason: request.fallbackReason,
    webGpuStartupTimeoutMs: request.webGpuStartupTimeoutMs,
    allowFallbackAdapter: request.allowFallbackAdapter,
    maxThreads: request.maxThreads,
  });
  engine = await SegmentationEngine.create(
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
  const detectorLoaders: DetectorLoader[] = [
    { name: 'centernet', vocabulary: COCO_CLASSES, load: () => loadDetector(runtime, base, manifest) },
    { name: 'coco-ssd', vocabulary: COCO_CLASSES, load: () => loadCocoSsd(runtime, base, manifest) },
    { name: 'blazeface', vocabulary: ['face'], load: () => loadFaceDetector(runtime, base, manifest) },
    { name: 'open-images-ssd', vocabulary: OPEN_IMAGES_CONCEPTS, load: () => loadOpenImagesDetector(runtime, base, manifest) },
  ];
  const allowed = request.textDetectors;
  const textOptions = request.textPasses ? { passes: request.textPasses } : {};
  text = new TextService(engine, allowed ? detectorLoaders.filter((l) => allowed.includes(l.name)) : detectorLoaders, textOptions);
  // Written to the Cache API while the sessions were created; awaited so "ready" means "works offline next time".
  await Promise.all([encoder.stored, decoder.stored, decoderPrecompute?.stored]);
  const modelSource = encoder.fromCache && decoder.fromCache ? 'cache' : !encoder.fromCache && !decoder.fromCache ? 'network' : 'mixed';
  post({ type: 'ready', backend: engine.backend, timings: { downloadMs: t1 - t0, sessionMs: performance.now() - t1 }, modelSource, encoderModel });
}

/**
 * A detector for text prompts, fetched on the first prompt that names a concept it knows (most
 * sessions never type one, so start-up does not pay for it): with progress, verified against the
 * manifest and cached like the SAM models.
 */
async function loadDetectorModel<T>(
  entry: { file: string } | ManifestEntry,
  base: string,
  progress: ModelProgress['model'],
  create: (bytes: Uint8Array) => Promise<T>,
): Promise<T> {
  const model = await loadModel(new URL(entry.file, base).href, 'sha256' in entry ? entry : undefined, progressReporter(progress));
  const detector = await create(model.bytes);
  await model.stored;
  return detector;
}

function loadDetector(runtime: Runtime, base: string, manifest: ModelManifest | undefined): Promise<ConceptDetector> {
  return loadDetectorModel(manifest?.detector ?? { file: 'detector.onnx' }, base, 'detector', (bytes) => ObjectDetector.create(runtime, bytes));
}

/** The second COCO detector, fetched alongside the first on the first known prompt; it joins once ready. */
function loadCocoSsd(runtime: Runtime, base: string, manifest: ModelManifest | undefined): Promise<ConceptDetector> {
  return loadDetectorModel(manifest?.detectorCocoSsd ?? { file: 'detector-coco-ssd.onnx' }, base, 'detector-coco-ssd', (bytes) => CocoSsdDetector.create(runtime, bytes));
}

/** The face detector, fetched on the first prompt that asks for a face. */
function loadFaceDetector(runtime: Runtime, base: string, manifest: ModelManifest | undefined): Promise<ConceptDetector> {
  return loadDetectorModel(manifest?.detectorFace ?? { file: 'detector-face.onnx' }, base, 'detector-face', (bytes) => FaceDetector.create(runtime, bytes));
}

/** The Open Images SSD, fetched on the first prompt that asks for one of its concepts (footwear, high heels, desk). */
function loadOpenImagesDetector(runtime: Runtime, base: string, manifest: ModelManifest | undefined): Promise<ConceptDetector> {
  return loadDetectorModel(manifest?.detectorOpenImages ?? { file: 'detector-open-images.onnx' }, base, 'detector-open-images', (bytes) => OpenImagesDetector.create(runtime, bytes));
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

async function predict(request: Extract<WorkerRequest, { type: 'predict' }>, active: SegmentationEngine): Promise<[PredictResponse, ArrayBufferView[]]> {
  const options = segmentationOptions(request.options);
  const predicted = await active.predict(request.imageKey, request.prompt, options);
  const best = predicted.candidates[0];
  if (request.earlyMask && best) {
    // A copy: the candidate's own buffer moves to the page with the result.
    post({ type: 'mask', id: request.id, mask: { width: best.mask.width, height: best.mask.height, data: best.mask.data.slice() } });
  }
  const t0 = performance.now();
  // Traced here, once, beside the mask: the page draws these and re-traces only through `retrace`.
  const candidates: PolygonCandidate[] = predicted.candidates.map((c) => ({
    polygons: maskOutline(c.mask, { ...options, area: c.area }),
    score: c.score,
    area: c.area,
    lowResLogits: c.lowResLogits,
    mask: c.mask,
  }));
  const polygonMs = performance.now() - t0;
  const views = candidates.flatMap((c) => [c.lowResLogits, c.mask.data]);
  return [{ candidates, timings: { ...predicted.timings, polygonMs } }, views];
}

function retrace(request: Extract<WorkerRequest, { type: 'retrace' }>): RetraceResponse {
  const t0 = performance.now();
  const polygons = request.masks.map((mask) => maskOutline(mask, request.outline));
  return { polygons, timings: { polygonMs: performance.now() - t0 } };
}

/** The tensor of an embedding made elsewhere, refused unless this worker's encoder made it. */
function fromThisEncoder(record: EmbeddingRecord): Tensor {
  if (record.model !== encoderModel) throw new Error(`the embedding is from ${record.model}, this engine runs ${encoderModel}`);
  return { data: record.data, dims: record.dims };
}

async function handle(request: WorkerRequest): Promise<void> {
  try {
    if (request.type === 'retrace') {
      post({ type: 'result', id: request.id, ok: true, value: retrace(request) });
      return;
    }
    if (!engine) throw new Error('the engine is not started yet');
    switch (request.type) {
      case 'embed': {
        const value = await engine.embed(request.image, request.imageId, { mirrored: request.mirrored });
        post({ type: 'result', id: request.id, ok: true, value });
        return;
      }
      case 'predict': {
        const [value, views] = await predict(request, engine);
        // The engine keeps nothing of these buffers, so they move to the page without a copy.
        post({ type: 'result', id: request.id, ok: true, value }, transferablesOf(views));
        return;
      }
      case 'segmentText': {
        const value = await text!.segment(request.image, request.prompts, request.imageId, request.outline);
        post({ type: 'result', id: request.id, ok: true, value }, transferablesOf(masksOf(value)));
        return;
      }
      case 'findSimilar': {
        const value = await text!.findSimilar(request.imageKey, request.mask, request.outline);
        post({ type: 'result', id: request.id, ok: true, value }, transferablesOf(masksOf(value)));
        return;
      }
      case 'exportEmbedding': {
        const found = engine.getEmbedding(request.imageKey);
        const record: EmbeddingRecord | null = found ? { model: encoderModel, dims: [...found.embedding.dims], data: found.embedding.data.slice() } : null;
        post({ type: 'result', id: request.id, ok: true, value: record }, record ? [record.data.buffer] : []);
        return;
      }
      case 'importEmbedding': {
        engine.adoptEmbedding(request.image, request.imageId, fromThisEncoder(request.record));
        post({ type: 'result', id: request.id, ok: true, value: null });
        return;
      }
      case 'importMirrorEmbedding': {
        await engine.adoptMirrorEmbedding(request.imageKey, fromThisEncoder(request.record));
        post({ type: 'result', id: request.id, ok: true, value: null });
        return;
      }
      case 'hasEmbedding':
        post({ type: 'result', id: request.id, ok: true, value: engine.hasEmbedding(request.imageKey) });
        return;
      case 'forget':
        engine.forget(request.imageKey);
        post({ type: 'result', id: request.id, ok: true, value: undefined });
        return;
    }
  } catch (error) {
    post({ type: 'result', id: request.id, ok: false, error: serializeError(error) });
  }
}

self.onmessage = (event: MessageEvent<StartRequest | WorkerRequest>) => {
  const request = event.data;
  if (request.type === 'start') {
    start(request).catch((error: unknown) =>
      post({ type: 'start-failed', error: serializeError(error), backendTimedOut: error instanceof BackendStartupTimeoutError }),
    );
  } else {
    // One request at a time: an ORT session must not run twice concurrently, and order is kept.
    // Re-tracing uses no session, so the Detail slider does not wait behind queued decodes.
    if (request.type === 'retrace') void handle(request);
    else queue = queue.then(() => handle(request));
  }
};
