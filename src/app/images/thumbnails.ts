/**
 * What the image list shows of each photo: a small picture, never the photo itself — a list of 200
 * rows would otherwise have the browser fetch and decode 200 full photos to draw 44 × 34 px each.
 * A server project's images use the server's thumbnail (rendered there; the browser's HTTP cache
 * keeps it, it is immutable); other images get one made here from the file in memory, on first
 * need, decoded and shrunk by `createImageBitmap` (off the main thread).
 */
import { PROJECT_THUMBNAIL_MAX_SIDE } from '../../contract/projects';

const serverUrls = new Map<string, string>();
const localUrls = new Map<string, string>();
const localPending = new Map<string, Promise<string | null>>();

/** The server thumbnails of the images of the project just opened, by the studio's image id. */
export function setServerThumbnails(urls: Iterable<readonly [string, string]>): void {
  for (const [imageId, url] of urls) serverUrls.set(imageId, url);
}

export function serverThumbnailUrl(imageId: string): string | null {
  return serverUrls.get(imageId) ?? null;
}

/** A local thumbnail already made, so a row mounted again shows it at once. */
export function readyLocalThumbnail(imageId: string): string | null {
  return localUrls.get(imageId) ?? null;
}

/** The size a thumbnail of a `width` × `height` photo is made at: fits the server's bound, never enlarged. */
export function thumbnailSize(width: number, height: number): { width: number; height: number } {
  const scale = Math.min(1, PROJECT_THUMBNAIL_MAX_SIDE / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/** A thumbnail of `file` (a photo of `width` × `height` as shown), made once; null when the browser cannot. */
export function localThumbnail(imageId: string, file: Blob, width: number, height: number): Promise<string | null> {
  const ready = localUrls.get(imageId);
  if (ready) return Promise.resolve(ready);
  let pending = localPending.get(imageId);
  if (!pending) {
    pending = shrink(file, width, height).then(
      (url) => {
        localUrls.set(imageId, url);
        return url;
      },
      () => null,
    );
    localPending.set(imageId, pending);
  }
  return pending;
}

async function shrink(file: Blob, width: number, height: number): Promise<string> {
  const size = thumbnailSize(width, height);
  const bitmap = await createImageBitmap(file, { resizeWidth: size.width, resizeHeight: size.height, resizeQuality: 'medium' });
  try {
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const context = canvas.getContext('2d');
    if (!context) throw new Error('2D canvas unavailable');
    context.drawImage(bitmap, 0, 0);
    return URL.createObjectURL(await canvas.convertToBlob({ type: 'image/webp', quality: 0.8 }));
  } finally {
    bitmap.close();
  }
}

/** Another person's space opens: no thumbnail of the previous one stays in reach. */
export function forgetThumbnails(): void {
  for (const url of localUrls.values()) URL.revokeObjectURL(url);
  localUrls.clear();
  localPending.clear();
  serverUrls.clear();
}
