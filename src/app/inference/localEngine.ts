import type { OutlineOptions, SegmentationOptions } from '../../engine/options';
import { mirrorImage } from '../../engine/mirror';
import { maskOutline } from '../../engine/polygons';
import type { BinaryMask, PolygonWithHoles, VisualPrompt } from '../../engine/types';
import type { EmbeddingRecord, PredictResponse } from '../../engine/worker/protocol';
import { useEngineStatus } from '../state/engineStatus';
import { rgbaOf } from '../images/imageLibrary';
import { browserModelVariants } from './modelVariants';
import { loadEmbedding, saveEmbedding } from './embeddingStore';
import { usePreferences } from '../state/preferences';
import { embeddingFromServer } from './serverStart';

/**
 * The browser engine (onnxruntime-web in a Web Worker), started once on demand. Each image is
 * embedded once per session (the worker's cache answers repeats); predictions on an image wait for
 * its embedding.
 */
type WorkerClient = Awaited<ReturnType<typeof import('../../engine/worker/client').EngineWorkerClient.start>>;

export interface LocalCandidate {
  readonly polygons: PolygonWithHoles[];
  readonly score: number;
  readonly area: number;
  readonly lowResLogits: Float32Array;
  readonly mask: { width: number; height: number; data: Uint8Array };
  /** The tolerance the worker traced `polygons` at. */
  readonly outlineTolerance: number;
}

let clientPromise: Promise<WorkerClient> | null = null;
const embeddings = new Map<string, Promise<string>>();
const embedded = new Set<string>();
const detectorDownloads = new Map<string, { loadedBytes: number; totalBytes: number }>();

export function startLocalEngine(): Promise<WorkerClient> {
  if (clientPromise) return clientPromise;
  const status = useEngineStatus.getState();
  status.update({ phase: 'downloading', error: null });
  clientPromise = (async () => {
    const { EngineWorkerClient } = await import('../../engine/worker/client');
    const models = browserModelVariants();
    const client = await EngineWorkerClient.start({
      modelBaseUrl: `${import.meta.env.BASE_URL}models/`,
      encoderPrecision: models.encoder,
      decoderPrecision: models.decoder,
      onProgress: (p) => {
        const current = useEngineStatus.getState();
        if (p.model.startsWith('detector')) {
          // Loaded lazily after start: their own progress (the detectors as one download), the engine stays 'ready' meanwhile.
          detectorDownloads.set(p.model, { loadedBytes: p.loadedBytes, totalBytes: p.totalBytes });
          const all = [...detectorDownloads.values()];
          current.update({ detector: { loadedBytes: all.reduce((n, d) => n + d.loadedBytes, 0), totalBytes: all.reduce((n, d) => n + d.totalBytes, 0) } });
          return;
        }
        const progress = { ...current.progress, [p.model]: { loadedBytes: p.loadedBytes, totalBytes: p.totalBytes } };
        const downloaded = progress.encoder && progress.decoder && Object.values(progress).every((m) => m && m.loadedBytes >= m.totalBytes);
        // Both files in: what remains is creating the inference sessions.
        current.update({ progress, phase: downloaded ? 'starting' : 'downloading' });
      },
    });
    useEngineStatus.getState().update({ phase: 'ready', backend: { ...client.backend }, models });
    return client;
  })();
  clientPromise.catch((error: unknown) => {
    clientPromise = null;
    useEngineStatus.getState().update({ phase: 'error', error: error instanceof Error ? error.message : String(error) });
  });
  return clientPromise;
}

export function isLocalEngineReady(): boolean {
  return useEngineStatus.getState().phase === 'ready';
}

/**
 * Embeds the image (once); resolves to the worker's image key. An embedding stored in IndexedDB by an
 * earlier visit is handed to the worker instead of running the encoder; in Server start the server
 * makes it (serverStart.ts), else — or when the server cannot — this device's encoder does; a new
 * one is stored either way.
 */
export function ensureEmbedding(imageId: string): Promise<string> {
  const existing = embeddings.get(imageId);
  if (existing) return existing;
  const promise = (async () => {
    const client = await startLocalEngine();
    const rgba = rgbaOf(imageId);
    if (!rgba) throw new Error('image not loaded');
    useEngineStatus.getState().update({ embedding: { imageId, state: 'running' } });
    const stored = await loadEmbedding(imageId, client.encoderModel);
    const served = stored ? undefined : await embeddingFromServer(imageId, client.encoderModel);
    let result: { imageKey: string; cacheHit: boolean; timings: { preprocessMs: number; encoderMs: number } };
    if (stored) {
      await client.importEmbedding(rgba, imageId, stored);
      result = { imageKey: imageId, cacheHit: true, timings: { preprocessMs: 0, encoderMs: 0 } };
    } else if (served) {
      await client.importEmbedding(rgba, imageId, served);
      void saveEmbedding(imageId, served);
      result = { imageKey: imageId, cacheHit: false, timings: { preprocessMs: 0, encoderMs: 0 } };
    } else {
      result = await client.embed(rgba, imageId);
      if (!result.cacheHit) {
        void client.exportEmbedding(result.imageKey).then((record) => record && saveEmbedding(imageId, record));
      }
    }
    const s = useEngineStatus.getState();
    s.update({
      embedding: { imageId, state: 'ready' },
      lastEncoder: { ...result.timings, cacheHit: result.cacheHit },
      cacheHits: s.cacheHits + (result.cacheHit ? 1 : 0),
      embeddings: s.embeddings + 1,
      storedEmbeddingsUsed: s.storedEmbeddingsUsed + (stored ? 1 : 0),
      serverEmbeddingsUsed: s.serverEmbeddingsUsed + (served ? 1 : 0),
    });
    embedded.add(imageId);
    return result.imageKey;
  })();
  embeddings.set(imageId, promise);
  promise.catch((error: unknown) => {
    embeddings.delete(imageId);
    useEngineStatus.getState().update({ embedding: { imageId, state: 'error' }, error: error instanceof Error ? error.message : String(error) });
  });
  return promise;
}

let background: Promise<unknown> = Promise.resolve();

/**
 * Embeds the session's photos one after another, `current` first, so switching photos finds its
 * embedding ready (or stored). Runs behind any click: the worker handles requests in order.
 */
export function embedInBackground(current: string | null, imageIds: readonly string[]): void {
  // Server start costs a credit per photo: only the photo the user opens is paid for.
  const others = usePreferences.getState().embeddingSource === 'server' ? [] : imageIds.filter((id) => id !== current);
  const order = [...(current ? [current] : []), ...others];
  for (const id of order) {
    if (embedded.has(id)) continue;
    background = background.then(() => ensureEmbedding(id)).catch(() => undefined);
  }
}

export function isEmbedded(imageId: string): boolean {
  return embedded.has(imageId);
}

/**
 * Candidates with their outlines, traced once in the worker at `options.tolerance` (the Detail slider's).
 * `onMask`: the best mask as soon as the decoder answers, before the outlines are traced.
 */
export async function predictLocal(
  imageId: string,
  prompt: VisualPrompt,
  options: Partial<SegmentationOptions> & { tolerance: number },
  onMask?: (mask: BinaryMask) => void,
): Promise<LocalCandidate[]> {
  const client = await startLocalEngine();
  const imageKey = await ensureEmbedding(imageId);
  const result = await client.predict(imageKey, prompt, options, onMask);
  useEngineStatus.getState().update({ lastDecoder: result.timings });
  return localCandidates(result, options.tolerance);
}

function localCandidates(result: PredictResponse, tolerance: number): LocalCandidate[] {
  return result.candidates.map((c) => ({ polygons: c.polygons, score: c.score, area: c.area, lowResLogits: c.lowResLogits, mask: c.mask, outlineTolerance: tolerance }));
}

const mirrorEmbeddings = new Map<string, Promise<string>>();
let mirrorWorker: Promise<WorkerClient> | null = null;

/**
 * A second engine worker, on one thread, that only embeds mirror images: its encoder run takes one
 * core while clicks keep the click worker, instead of queueing behind the encoder there.
 */
function startMirrorWorker(): Promise<WorkerClient> {
  mirrorWorker ??= (async () => {
    const { EngineWorkerClient } = await import('../../engine/worker/client');
    const models = browserModelVariants();
    // The models are in the Cache API by now (the click worker fetched them): no download to show.
    return EngineWorkerClient.start({
      modelBaseUrl: `${import.meta.env.BASE_URL}models/`,
      encoderPrecision: models.encoder,
      decoderPrecision: models.decoder,
      maxThreads: 1,
      embeddingCacheSize: 1,
      textDetectors: [],
      warmUpDecoder: false,
    });
  })();
  mirrorWorker.catch(() => (mirrorWorker = null));
  return mirrorWorker;
}

/** The mirror image's embedding made by the mirror worker under `key`, and stored in IndexedDB. */
async function embedMirrorImage(imageId: string, key: string): Promise<EmbeddingRecord> {
  const rgba = rgbaOf(imageId);
  if (!rgba) throw new Error('image not loaded');
  const helper = await startMirrorWorker();
  await helper.embed(mirrorImage(rgba), key, { transfer: true });
  const record = await helper.exportEmbedding(key);
  await helper.forget(key);
  if (!record) throw new Error('the mirror worker kept no embedding');
  // A copy: handing the record to the click worker moves its buffer there.
  void saveEmbedding(key, { ...record, data: record.data.slice() });
  return record;
}

/**
 * The photo's mirror-image embedding beside its own (once per photo), which mirror averaging decodes
 * on: one more encoder run, so it is asked for only when the user first pauses on this photo, and
 * made in the mirror worker; stored in IndexedDB like the photo's own, so a later visit skips it.
 */
function ensureMirrorEmbedding(imageId: string): Promise<string> {
  const existing = mirrorEmbeddings.get(imageId);
  if (existing) return existing;
  const promise = (async () => {
    const client = await startLocalEngine();
    const imageKey = await ensureEmbedding(imageId);
    // Keyed by photo: passes on two photos at once never swap their mirror images (the worker keeps one).
    const key = `mirror:${imageId}`;
    const stored = await loadEmbedding(key, client.encoderModel);
    const record = stored ?? (await embedMirrorImage(imageId, key));
    await client.importMirrorEmbedding(imageKey, record);
    if (stored) {
      const s = useEngineStatus.getState();
      s.update({ storedEmbeddingsUsed: s.storedEmbeddingsUsed + 1 });
    }
    return imageKey;
  })();
  mirrorEmbeddings.set(imageId, promise);
  promise.catch(() => mirrorEmbeddings.delete(imageId));
  return promise;
}

/**
 * The same decode with mirror averaging (the photo and its mirror image decoded, answers averaged):
 * the studio's mirror pass when the user pauses (mirrorPass.ts), since it costs a second decoder run
 * (and, the first time on a photo, an encoder run) that a click must not wait for.
 */
export async function mirrorPassLocal(
  imageId: string,
  prompt: VisualPrompt,
  options: Partial<SegmentationOptions> & { tolerance: number },
): Promise<LocalCandidate[]> {
  const client = await startLocalEngine();
  const imageKey = await ensureMirrorEmbedding(imageId);
  try {
    const result = await client.predict(imageKey, prompt, { ...options, mirrorAverage: true });
    useEngineStatus.getState().update({ lastMirrorPass: result.timings });
    return localCandidates(result, options.tolerance);
  } catch (error) {
    // The worker's cache may have dropped the photo (and its mirror with it): embed both again next time.
    mirrorEmbeddings.delete(imageId);
    throw error;
  }
}

/**
 * The outlines of masks this page holds, at `outline`, traced in the engine worker. Where no worker
 * was ever started (Remote mode: masks painted or imported here), the page traces them itself with
 * the same engine function rather than download the model for it.
 */
export async function retraceMasks(masks: readonly BinaryMask[], outline: Partial<OutlineOptions>): Promise<PolygonWithHoles[][]> {
  if (masks.length === 0) return [];
  const client = await clientPromise?.catch(() => null);
  if (!client) return masks.map((mask) => maskOutline(mask, outline));
  return (await client.retrace(masks, outline)).polygons;
}
