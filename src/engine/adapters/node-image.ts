/** Image file bytes → RGBA pixels in Node (sharp). Node-only. */
import sharp from 'sharp';
import type { RgbaImage } from '../types';

export class ImageDecodeError extends Error {
  override name = 'ImageDecodeError';
}

/** Decodes PNG, JPEG, WebP, GIF (first frame), AVIF, TIFF… applying EXIF orientation. */
export async function decodeImage(bytes: Uint8Array): Promise<RgbaImage> {
  if (bytes.length === 0) throw new ImageDecodeError('the image is empty');
  try {
    const { data, info } = await sharp(bytes, { failOn: 'error', limitInputPixels: 100_000_000 })
      .rotate()
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 4) throw new ImageDecodeError(`expected 4 channels after decoding, got ${info.channels}`);
    return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.length) };
  } catch (err) {
    if (err instanceof ImageDecodeError) throw err;
    const reason = err instanceof Error ? err.message : String(err);
    throw new ImageDecodeError(`not a readable image (PNG, JPEG, WebP, GIF, AVIF or TIFF expected): ${reason}`);
  }
}
