import type { RgbaImage } from '../../engine/types';
import type { ImageEntry } from '../../annotations/annotation';
import { truncationProblem } from './imageIntegrity';
import { forgetThumbnails } from './thumbnails';

/**
 * Pixels of the session's images, outside the document: the document only holds ids and sizes,
 * so undo snapshots stay small. Images are addressed by a hash of their bytes, which also serves
 * as the stable `imageId` for the engine's embedding cache and the API.
 */
interface LoadedImage {
  readonly blob: Blob;
  readonly element: HTMLImageElement;
  rgba?: RgbaImage;
}

const loaded = new Map<string, LoadedImage>();
const listeners = new Set<() => void>();

export function subscribeImages(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** A photo's id from the hex SHA-256 of its bytes (a server project names its images' files by it). */
export const contentIdOfSha256 = (sha256Hex: string) => `img-${sha256Hex.slice(0, 24)}`;

async function contentId(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', bytes);
  return contentIdOfSha256(Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join(''));
}

function decode(blob: Blob): Promise<HTMLImageElement> {
  return new Promise((resolve, reject) => {
    const element = new Image();
    element.onload = () => resolve(element);
    element.onerror = () => reject(new Error('This file is not an image the browser can open.'));
    element.src = URL.createObjectURL(blob);
  });
}

/** Reads the bytes once: refused if truncated (see imageIntegrity.ts), else hashed for the id and decoded. */
export async function addImageBlob(blob: Blob, name: string): Promise<ImageEntry> {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  const problem = truncationProblem(bytes);
  if (problem) throw new Error(`${problem}. Nothing was opened; try the file again from its source.`);
  const id = await contentId(bytes);
  const existing = loaded.get(id);
  const element = existing?.element ?? (await decode(blob));
  if (!existing) loaded.set(id, { blob, element });
  listeners.forEach((l) => l());
  return { id, name, width: element.naturalWidth, height: element.naturalHeight };
}

/** Restores an image of a saved session under its saved id. */
export async function restoreImageBlob(id: string, blob: Blob): Promise<void> {
  if (loaded.has(id)) return;
  loaded.set(id, { blob, element: await decode(blob) });
  listeners.forEach((l) => l());
}

export function imageElement(id: string): HTMLImageElement | null {
  return loaded.get(id)?.element ?? null;
}

export function imageBlob(id: string): Blob | null {
  return loaded.get(id)?.blob ?? null;
}

export function rgbaOf(id: string): RgbaImage | null {
  const entry = loaded.get(id);
  if (!entry) return null;
  if (!entry.rgba) {
    const { naturalWidth: width, naturalHeight: height } = entry.element;
    const canvas = new OffscreenCanvas(width, height);
    const context = canvas.getContext('2d', { willReadFrequently: true });
    if (!context) throw new Error('2D canvas unavailable');
    context.drawImage(entry.element, 0, 0);
    const data = context.getImageData(0, 0, width, height).data;
    entry.rgba = { width, height, data };
  }
  return entry.rgba;
}

/** A copy scaled so its longest side is `scale` times the original, Base64 with a data-URI prefix. */
export async function encodeForUpload(id: string, scale: number): Promise<string> {
  const entry = loaded.get(id);
  if (!entry) throw new Error('image not loaded');
  let blob = entry.blob;
  if (scale !== 1 || !/^image\/(png|jpeg|webp)$/.test(blob.type)) {
    const width = Math.max(1, Math.round(entry.element.naturalWidth * scale));
    const height = Math.max(1, Math.round(entry.element.naturalHeight * scale));
    const canvas = new OffscreenCanvas(width, height);
    const context = canvas.getContext('2d');
    if (!context) throw new Error('2D canvas unavailable');
    context.imageSmoothingQuality = 'high';
    context.drawImage(entry.element, 0, 0, width, height);
    blob = await canvas.convertToBlob({ type: 'image/jpeg', quality: 0.92 });
  }
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return `data:${blob.type};base64,${btoa(binary)}`;
}

export const SAMPLES = [
  { file: 'coffee.png', title: 'Coffee cup' },
  { file: 'chelsea.png', title: 'Chelsea the cat' },
  { file: 'astronaut.png', title: 'Astronaut' },
  { file: 'rocket.jpg', title: 'Falcon 9 launch' },
] as const;

export async function fetchSample(file: string): Promise<Blob> {
  const response = await fetch(`${import.meta.env.BASE_URL}samples/${file}`);
  if (!response.ok) throw new Error(`sample ${file} not found`);
  return response.blob();
}

/** Another person's space opens: none of the previous space's photos stay in reach of the page. */
export function forgetAllImages(): void {
  for (const { element } of loaded.values()) URL.revokeObjectURL(element.src);
  loaded.clear();
  forgetThumbnails();
  listeners.forEach((l) => l());
}
