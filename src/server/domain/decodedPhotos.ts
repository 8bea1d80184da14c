/**
 * Decoded pixels of recent uploads, by the name a job gives its photo (domain/segmentation.ts
 * `privateCacheKeys`: the file's digest in the payer's scope): a client segmenting the same photo
 * again (the imageId flow) pays neither the decode nor, thanks to the workers' engine caches, the
 * encoder. One cache for every worker, in the server's process; sharp decodes in its own threads, off
 * the event loop. Bounded by bytes, not entries: a few large photos must not exhaust memory.
 */
import { decodeImage, ImageDecodeError } from '../../engine/adapters/nodeImage';
import { LruCache } from '../../engine/lru';
import type { RgbaImage } from '../../engine/types';

export const DECODED_BUDGET_BYTES = 256 * 1024 * 1024;

export class DecodedPhotos {
  private readonly cache: LruCache<string, RgbaImage>;

  constructor(private readonly budgetBytes = DECODED_BUDGET_BYTES) {
    this.cache = new LruCache<string, RgbaImage>(budgetBytes, (image) => image.data.byteLength);
  }

  /**
   * The pixels of the photo `key` names: kept ones, else `file()` decoded (and kept unless it would
   * take more than a quarter of the budget). A file that cannot be read or decoded is an
   * ImageDecodeError: the caller's 400 `invalid-image`.
   */
  async pixels(key: string, file: () => Uint8Array): Promise<RgbaImage> {
    const held = this.cache.get(key);
    if (held) return held;
    let bytes: Uint8Array;
    try {
      bytes = file();
    } catch (error) {
      throw new ImageDecodeError(`the image could not be read: ${error instanceof Error ? error.message : String(error)}`);
    }
    const image = await decodeImage(bytes);
    if (image.data.byteLength <= this.budgetBytes / 4) this.cache.set(key, image);
    return image;
  }
}
