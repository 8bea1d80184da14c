import { createStore, del, get, set } from 'idb-keyval';
import type { StudioDocument } from '../state/model';
import { emptyDocument } from '../state/model';

/**
 * The session survives a reload: the document (without the large decoder logits) under one key,
 * each image's bytes under its own key, written once.
 */
const store = typeof indexedDB === 'undefined' ? undefined : createStore('maskwright', 'session');
const DOCUMENT_KEY = 'document-v1';
const imageKey = (id: string) => `image:${id}`;

export function stripForStorage(doc: StudioDocument): StudioDocument {
  const prompts = Object.fromEntries(
    Object.entries(doc.prompts).map(([id, p]) => [
      id,
      {
        ...p,
        status: p.status === 'pending' || p.status === 'waiting' ? ('idle' as const) : p.status,
        candidates: p.candidates.map(({ lowResLogits: _logits, ...rest }) => rest),
      },
    ]),
  );
  return { ...doc, prompts };
}

export async function saveDocument(doc: StudioDocument): Promise<void> {
  await set(DOCUMENT_KEY, stripForStorage(doc), store);
}

export async function saveImage(id: string, blob: Blob): Promise<void> {
  if ((await get(imageKey(id), store)) === undefined) await set(imageKey(id), blob, store);
}

export async function loadSession(): Promise<{ doc: StudioDocument; blobs: Map<string, Blob> } | null> {
  const doc = (await get(DOCUMENT_KEY, store)) as StudioDocument | undefined;
  if (!doc || !Array.isArray(doc.images)) return null;
  const blobs = new Map<string, Blob>();
  for (const image of doc.images) {
    const blob = (await get(imageKey(image.id), store)) as Blob | undefined;
    if (blob) blobs.set(image.id, blob);
  }
  // An image whose bytes are gone cannot be shown: drop it rather than show an empty canvas.
  const images = doc.images.filter((i) => blobs.has(i.id));
  const activeImageId = images.some((i) => i.id === doc.activeImageId) ? doc.activeImageId : (images[0]?.id ?? null);
  return { doc: { ...emptyDocument(), ...doc, images, activeImageId }, blobs };
}

export async function forgetImage(id: string): Promise<void> {
  await del(imageKey(id), store);
}
