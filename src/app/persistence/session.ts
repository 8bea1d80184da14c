import { clear, createStore, del, get, keys, set } from 'idb-keyval';
import type { StudioDocument } from '../state/model';
import { emptyDocument } from '../state/model';
import { ANONYMOUS_SPACE, seal, unseal, type Sealed } from './localSpace';
import { parseTyped, stringifyTyped } from './typedJson';

/**
 * The session survives a reload: the document (without the large decoder logits) under one key,
 * each image's bytes under its own key, written once — per local space (localSpace.ts). The
 * anonymous space keeps the plain entries and key names of the time before accounts; an account's
 * entries are prefixed with its space name and sealed with its key.
 */
const store = typeof indexedDB === 'undefined' ? undefined : createStore('maskwright', 'session');
/** The keys of the account spaces while their owner is signed in, and the space last opened. */
const keyStore = typeof indexedDB === 'undefined' ? undefined : createStore('maskwright-space-keys', 'keys');
const CURRENT_SPACE = 'current';

export interface LocalSpace {
  readonly name: string;
  /** null only for the anonymous space, whose entries are plain. */
  readonly key: CryptoKey | null;
}

export const ANONYMOUS: LocalSpace = { name: ANONYMOUS_SPACE, key: null };

const prefix = (space: LocalSpace) => (space.key ? `${space.name}/` : '');
const documentKey = (space: LocalSpace) => `${prefix(space)}document-v1`;
const learnedModelKey = (space: LocalSpace) => `${prefix(space)}learned-classes-v1`;
const imageKey = (space: LocalSpace, id: string) => `${prefix(space)}image:${id}`;

interface SealedImage {
  readonly sealed: Sealed;
  readonly type: string;
}

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

/** A value as the space stores it: plain in the anonymous space, sealed with the account's key otherwise. */
async function stored<T>(space: LocalSpace, value: T): Promise<T | Sealed> {
  return space.key ? seal(space.key, new TextEncoder().encode(stringifyTyped(value))) : value;
}

async function readStored<T>(space: LocalSpace, key: string): Promise<T | undefined> {
  const value = (await get(key, store)) as T | Sealed | undefined;
  if (!value || !space.key) return value as T | undefined;
  return parseTyped<T>(new TextDecoder().decode(await unseal(space.key, value as Sealed)));
}

export async function saveDocument(space: LocalSpace, doc: StudioDocument): Promise<void> {
  await set(documentKey(space), await stored(space, stripForStorage(doc)), store);
}

/** The session's learned classes (vectors and weights, never photos: learn/sessionLearner.ts) beside its document. */
export async function saveLearnedModel(space: LocalSpace, model: unknown): Promise<void> {
  await set(learnedModelKey(space), await stored(space, model), store);
}

export const loadLearnedModel = (space: LocalSpace): Promise<unknown> => readStored<unknown>(space, learnedModelKey(space));

export async function saveImage(space: LocalSpace, id: string, blob: Blob): Promise<void> {
  if ((await get(imageKey(space, id), store)) !== undefined) return;
  const value: Blob | SealedImage = space.key ? { sealed: await seal(space.key, new Uint8Array(await blob.arrayBuffer())), type: blob.type } : blob;
  await set(imageKey(space, id), value, store);
}

/** The stored document alone, without its photos (cheap: for asking what a space holds). */
export const readDocument = (space: LocalSpace) => readStored<StudioDocument>(space, documentKey(space));

async function readImage(space: LocalSpace, id: string): Promise<Blob | undefined> {
  const value = (await get(imageKey(space, id), store)) as Blob | SealedImage | undefined;
  if (!value || !space.key) return value as Blob | undefined;
  const { sealed, type } = value as SealedImage;
  return new Blob([await unseal(space.key, sealed)], { type });
}

export async function loadSession(space: LocalSpace): Promise<{ doc: StudioDocument; blobs: Map<string, Blob> } | null> {
  const doc = await readDocument(space);
  if (!doc || !Array.isArray(doc.images)) return null;
  const blobs = new Map<string, Blob>();
  for (const image of doc.images) {
    const blob = await readImage(space, image.id);
    if (blob) blobs.set(image.id, blob);
  }
  // An image whose bytes are gone cannot be shown: drop it rather than show an empty canvas.
  const images = doc.images.filter((i) => blobs.has(i.id));
  const activeImageId = images.some((i) => i.id === doc.activeImageId) ? doc.activeImageId : (images[0]?.id ?? null);
  return { doc: { ...emptyDocument(), ...doc, images, activeImageId }, blobs };
}

export async function forgetImage(space: LocalSpace, id: string): Promise<void> {
  await del(imageKey(space, id), store);
}

/** Empties the space: its document, its learned classes and the photos named. */
export async function forgetSession(space: LocalSpace, imageIds: readonly string[]): Promise<void> {
  await del(documentKey(space), store);
  await del(learnedModelKey(space), store);
  for (const id of imageIds) await forgetImage(space, id);
}

/** Kept while the account is signed in here; see localSpace.ts. */
export async function rememberSpaceKey(name: string, key: CryptoKey): Promise<void> {
  await set(name, key, keyStore);
  await set(CURRENT_SPACE, name, keyStore);
}

export async function spaceKey(name: string): Promise<CryptoKey | undefined> {
  return (await get(name, keyStore)) as CryptoKey | undefined;
}

/** The account space opened last, for opening it offline when the server cannot say who is signed in. */
export async function lastSpaceName(): Promise<string | undefined> {
  return (await get(CURRENT_SPACE, keyStore)) as string | undefined;
}

/** Logging out (or the server saying nobody is signed in): no account space can be opened here any more. */
export async function forgetAllSpaceKeys(): Promise<void> {
  if ((await keys(keyStore)).length) await clear(keyStore);
}
