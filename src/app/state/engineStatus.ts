import { create } from 'zustand';

export type EnginePhase = 'off' | 'downloading' | 'starting' | 'ready' | 'error';

export interface ModelBytes {
  readonly loadedBytes: number;
  readonly totalBytes: number;
}

/** What the status bar shows about local inference. */
interface EngineStatusState {
  phase: EnginePhase;
  error: string | null;
  progress: Partial<Record<'encoder' | 'decoder', ModelBytes>>;
  /** The text-prompt detector's download, once the first known text prompt asks for it. */
  detector: ModelBytes | null;
  backend: { name: string; threads: number; detail?: string } | null;
  /** Which model variants the worker runs (fp32 or int8), once it is ready. */
  models: { encoder: 'fp32' | 'int8'; decoder: 'fp32' | 'int8' } | null;
  embedding: { imageId: string; state: 'running' | 'ready' | 'error' } | null;
  lastEncoder: { preprocessMs: number; encoderMs: number; cacheHit: boolean } | null;
  lastDecoder: { decoderMs: number; postprocessMs: number; polygonMs: number } | null;
  /** The last mirror pass on a pause (mirror averaging: both decoder runs). */
  lastMirrorPass: { decoderMs: number; postprocessMs: number; polygonMs: number } | null;
  cacheHits: number;
  embeddings: number;
  /** Embeddings restored from IndexedDB instead of running the encoder (embeddingStore.ts). */
  storedEmbeddingsUsed: number;
  /** Embeddings made by the server (Server start) instead of this device's encoder. */
  serverEmbeddingsUsed: number;
  update(change: Partial<Omit<EngineStatusState, 'update'>>): void;
}

export const useEngineStatus = create<EngineStatusState>((set) => ({
  phase: 'off',
  error: null,
  progress: {},
  detector: null,
  backend: null,
  models: null,
  embedding: null,
  lastEncoder: null,
  lastDecoder: null,
  lastMirrorPass: null,
  cacheHits: 0,
  embeddings: 0,
  storedEmbeddingsUsed: 0,
  serverEmbeddingsUsed: 0,
  update: (change) => set(change),
}));

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
