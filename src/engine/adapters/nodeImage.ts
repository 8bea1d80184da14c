/** Image file bytes → RGBA pixels in Node (sharp). Node-only. */
import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { MAX_IMAGE_PIXELS } from '../answers';
import type { RgbaImage } from '../types';

export class ImageDecodeError extends Error {
  override name = 'ImageDecodeError';
  /** 'unsupported' = not an image we can read; 'too-large' = decodes to more pixels than allowed. */
  constructor(
    message: string,
    readonly reason: 'unsupported' | 'too-large' = 'unsupported',
  ) {
    super(message);
  }
}

/**
 * A 1.5 MiB upload can still declare a huge canvas (a "decompression bomb"); the limit is far above
 * any photo we expect (the spec recommends ≤ 1024×1024) and keeps RGBA plus masks within a few
 * hundred MB. The server checks the same limit before it charges.
 */
export const DEFAULT_MAX_PIXELS = MAX_IMAGE_PIXELS;

/**
 * Decodes PNG, JPEG, WebP, GIF (first frame), AVIF, TIFF… EXIF orientation is applied, so coordinates
 * refer to the image as a browser displays it.
 */
export async function decodeImage(bytes: Uint8Array, options: { maxPixels?: number } = {}): Promise<RgbaImage> {
  const maxPixels = options.maxPixels ?? DEFAULT_MAX_PIXELS;
  if (bytes.length === 0) throw new ImageDecodeError('the image is empty');
  let width: number | undefined;
  let height: number | undefined;
  try {
    const meta = await sharp(bytes).metadata();
    width = meta.width;
    height = meta.height;
  } catch (err) {
    throw new ImageDecodeError(`not a readable image (PNG, JPEG, WebP, GIF, AVIF or TIFF expected): ${reason(err)}`);
  }
  if (!width || !height) throw new ImageDecodeError('not a readable image: it declares no size');
  if (width * height > maxPixels) {
    throw new ImageDecodeError(`image too large: ${width}×${height} is more than ${maxPixels} pixels`, 'too-large');
  }
  try {
    const { data, info } = await sharp(bytes, { failOn: 'error', limitInputPixels: maxPixels })
      .rotate()
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 4) throw new ImageDecodeError(`expected 4 channels after decoding, got ${info.channels}`);
    return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.length) };
  } catch (err) {
    if (err instanceof ImageDecodeError) throw err;
    throw new ImageDecodeError(`not a readable image (PNG, JPEG, WebP, GIF, AVIF or TIFF expected): ${reason(err)}`);
  }
}

function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Reads and decodes an image file: the CLI's one way in (the server decodes uploads with
 * `decodeImage` too, server/domain/decodedPhotos.ts). A file that cannot be read is an ImageDecodeError too, with why.
 */
export async function readImageFile(path: string, options: { maxPixels?: number } = {}): Promise<RgbaImage> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ImageDecodeError(`cannot read the file: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : reason(err)}`);
  }
  return decodeImage(bytes, options);
}
