import { clear, createStore, del, get, set, type UseStore } from 'idb-keyval';
import type { EmbeddingRecord } from '../../engine/service/api';

/**
 * Image embeddings kept in IndexedDB, so a reload or a return to a photo costs no encoder run.
 * Keyed by the photo's content id (a SHA-256 of its bytes, see imageLibrary; `mirror:<id>` for its
 * mirror image, which the mirror pass decodes on) and the encoder's identity (`file@sha256`): another
 * model variant never reads them.
 */
const MAX_EMBEDDINGS = 24; // 4 MB each: about 100 MB at most
const INDEX_KEY = 'index';

export const embeddingKey = (imageId: string, model: string): string => `embedding:${imageId}:${model}`;

export interface StoredEmbeddings {
  load(imageId: string, model: string): Promise<EmbeddingRecord | undefined>;
  /** Stores one embedding; the oldest beyond MAX_EMBEDDINGS are dropped. Failures (quota) are not fatal. */
  save(imageId: string, record: EmbeddingRecord): Promise<void>;
}

export interface BrowserEmbeddings extends StoredEmbeddings {
  /** Logging out: the embeddings of the photos seen here go too (a content id names a photo). */
  forgetAll(): Promise<void>;
}

/** The page's store (opened on first use); without IndexedDB it keeps nothing. */
export function indexedDbEmbeddings(): BrowserEmbeddings {
  let store: UseStore | undefined;
  const db = (): UseStore | undefined => {
    if (typeof indexedDB === 'undefined') return undefined;
    store ??= createStore('maskwright-embeddings', 'embeddings');
    return store;
  };
  return {
    async load(imageId, model) {
      const target = db();
      if (!target) return undefined;
      const record = await get<EmbeddingRecord>(embeddingKey(imageId, model), target).catch(() => undefined);
      return record && record.model === model ? record : undefined;
    },
    async save(imageId, record) {
      const target = db();
      if (!target) return;
      const key = embeddingKey(imageId, record.model);
      try {
        await set(key, record, target);
        const index = ((await get<string[]>(INDEX_KEY, target)) ?? []).filter((k) => k !== key);
        index.push(key);
        const dropped = index.splice(0, Math.max(0, index.length - MAX_EMBEDDINGS));
        await Promise.all(dropped.map((k) => del(k, target)));
        await set(INDEX_KEY, index, target);
      } catch {
        // Out of quota or storage disabled: the embedding is simply computed again next time.
      }
    },
    async forgetAll() {
      const target = db();
      if (target) await clear(target);
    },
  };
}
