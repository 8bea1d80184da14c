/**
 * Small previews of project images for the studio's image list: a list of 200 rows must not make
 * the browser fetch and decode 200 full photos. One preview per stored file (content-addressed: all
 * images naming the same bytes share it), rendered by sharp on its own thread pool, kept in a
 * bounded in-memory cache; an upload renders its file's at once. It is derived data: another process or a restart renders it again from
 * the file, so nothing has to be stored or migrated.
 */
import sharp from 'sharp';
import { LIMITS } from '../../../contract/limits';
import { LruCache } from '../../../engine/lru';
import { PROJECT_THUMBNAIL_MAX_SIDE as THUMBNAIL_MAX_SIDE } from '../../../contract/projects';

export { THUMBNAIL_MAX_SIDE };
export const THUMBNAIL_MEDIA_TYPE = 'image/webp';
/** Names the rendering in the ETag, so a change of size or format is a new URL version for caches. */
export const THUMBNAIL_VARIANT = `w${THUMBNAIL_MAX_SIDE}.webp`;
const DEFAULT_CACHE_BYTES = 32 * 1024 * 1024;

/** The file shrunk to fit THUMBNAIL_MAX_SIDE (never enlarged), turned as its EXIF orientation says, as WebP. */
export function renderThumbnail(file: Uint8Array): Promise<Buffer> {
  // The upload's check decoded the file whole; these limits hold for files stored before it did.
  return sharp(file, { limitInputPixels: LIMITS.imageMaxPixels, failOn: 'truncated' })
    .rotate()
    .resize(THUMBNAIL_MAX_SIDE, THUMBNAIL_MAX_SIDE, { fit: 'inside', withoutEnlargement: true })
    .webp({ quality: 75 })
    .toBuffer();
}

/**
 * Thumbnails by key, least recently used dropped first once over `maxBytes`; requests for a key
 * being rendered wait for that one rendering. The key is the caller's: projects key by project and
 * file digest, so a thumbnail rendered for one account's upload never answers faster for another's.
 */
export class ThumbnailCache {
  private readonly entries: LruCache<string, Buffer>;
  private readonly rendering = new Map<string, Promise<Buffer>>();

  constructor(
    maxBytes = DEFAULT_CACHE_BYTES,
    private readonly render: (file: Uint8Array) => Promise<Buffer> = renderThumbnail,
  ) {
    this.entries = new LruCache(maxBytes, (thumbnail) => thumbnail.byteLength);
  }

  get(key: string, readFile: () => Promise<Uint8Array>): Promise<Buffer> {
    const hit = this.entries.get(key);
    if (hit) return Promise.resolve(hit);
    let pending = this.rendering.get(key);
    if (!pending) {
      pending = readFile()
        .then(this.render)
        .then((thumbnail) => {
          this.entries.set(key, thumbnail);
          return thumbnail;
        })
        .finally(() => this.rendering.delete(key));
      this.rendering.set(key, pending);
    }
    return pending;
  }

  /** Keys held now, least recently used first. */
  cached(): string[] {
    return this.entries.keys();
  }
}
