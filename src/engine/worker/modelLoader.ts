/**
 * Model download for the browser: streamed with byte progress, verified against
 * public/models/manifest.json (SHA-256) and kept in the Cache API so later visits work offline.
 *
 * Only web-platform APIs (fetch, streams, Cache API, SubtleCrypto), usable in a worker.
 */

export const MODEL_CACHE_NAME = 'maskwright-models-v1';
const SHA_HEADER = 'x-maskwright-sha256';

export type { ManifestEntry, ModelManifest } from '../catalog';
import type { ManifestEntry, ModelManifest } from '../catalog';

export class ModelIntegrityError extends Error {
  override name = 'ModelIntegrityError';
}

export interface LoadedModel {
  bytes: Uint8Array;
  fromCache: boolean;
  sha256?: string;
  /** Settles when the downloaded copy is in the Cache API (at once for cached loads). */
  stored: Promise<void>;
}

type ProgressFn = (loadedBytes: number, totalBytes: number) => void;

async function openCache(): Promise<Cache | undefined> {
  try {
    return typeof caches === 'undefined' ? undefined : await caches.open(MODEL_CACHE_NAME);
  } catch {
    return undefined; // e.g. storage disabled: still works, just not offline
  }
}

export async function sha256Hex(bytes: Uint8Array): Promise<string | undefined> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return undefined; // insecure context
  const digest = await subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Reads a body to one buffer, reporting progress. `expectedSize` preallocates (no final copy). */
export async function readWithProgress(response: Response, expectedSize: number | undefined, onProgress?: ProgressFn): Promise<Uint8Array> {
  const lengthHeader = Number(response.headers.get('content-length'));
  // content-length is the compressed size when the server gzips; the manifest size is authoritative.
  const total = expectedSize ?? (Number.isFinite(lengthHeader) && lengthHeader > 0 ? lengthHeader : 0);
  if (!response.body) {
    const bytes = new Uint8Array(await response.arrayBuffer());
    onProgress?.(bytes.length, total || bytes.length);
    return bytes;
  }
  const reader = response.body.getReader();
  let buffer = new Uint8Array(total > 0 ? total : 1 << 20);
  let loaded = 0;
  onProgress?.(0, total);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (loaded + value.length > buffer.length) {
      const grown = new Uint8Array(Math.max(buffer.length * 2, loaded + value.length));
      grown.set(buffer.subarray(0, loaded));
      buffer = grown;
    }
    buffer.set(value, loaded);
    loaded += value.length;
    onProgress?.(loaded, Math.max(total, loaded));
  }
  return loaded === buffer.length ? buffer : buffer.slice(0, loaded);
}

/** The manifest from the network, else the cached copy (offline), else undefined (no verification). */
export async function loadManifest(baseUrl: string): Promise<ModelManifest | undefined> {
  const url = new URL('manifest.json', baseUrl).href;
  const cache = await openCache();
  try {
    const response = await fetch(url, { cache: 'no-cache' });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const manifest = (await response.clone().json()) as ModelManifest;
    await cache?.put(url, response).catch(() => undefined);
    return manifest;
  } catch {
    const cached = await cache?.match(url);
    return cached ? ((await cached.json()) as ModelManifest) : undefined;
  }
}

/**
 * One model's bytes: from the Cache API when its recorded hash matches the manifest, otherwise
 * downloaded, hashed, checked and cached.
 */
export async function loadModel(url: string, expected: ManifestEntry | undefined, onProgress?: ProgressFn): Promise<LoadedModel> {
  const cache = await openCache();
  const cached = await cache?.match(url);
  if (cached) {
    const recorded = cached.headers.get(SHA_HEADER) ?? undefined;
    if (!expected || recorded === expected.sha256) {
      const bytes = await readWithProgress(cached, expected?.size, onProgress);
      return { bytes, fromCache: true, sha256: recorded, stored: Promise.resolve() };
    }
  }

  const response = await fetch(url, { cache: 'no-cache' });
  if (!response.ok) throw new Error(`downloading ${url} failed: HTTP ${response.status} ${response.statusText}`);
  const bytes = await readWithProgress(response, expected?.size, onProgress);
  const digest = await sha256Hex(bytes);
  if (expected && digest && digest !== expected.sha256) {
    throw new ModelIntegrityError(`${url} does not match manifest.json: sha256 ${digest}, expected ${expected.sha256} (${bytes.length} bytes, expected ${expected.size})`);
  }
  let stored: Promise<void> = Promise.resolve();
  if (cache) {
    const headers: Record<string, string> = { 'content-type': 'application/octet-stream', 'content-length': String(bytes.length) };
    if (digest) headers[SHA_HEADER] = digest;
    // Response copies the bytes. A failed write (quota) only costs offline use, so it is swallowed.
    stored = cache.put(url, new Response(bytes as Uint8Array<ArrayBuffer>, { headers })).catch(() => undefined);
  }
  return { bytes, fromCache: false, sha256: digest, stored };
}
