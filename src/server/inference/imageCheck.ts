/**
 * The check an image seen for the first time passes before anything is charged: its header must be
 * that of a raster format we decode, with dimensions within the pixel limit. Reads the
 * header only (our own reader first, sharp's metadata for the formats it does not know); the full
 * decode happens in the worker. Lives with inference, not in the domain: the domain is given it.
 */
import sharp from 'sharp';
import { DomainError } from '../domain/errors';
import { readImageHeader } from './imageHeader';
import { LIMITS } from '../../contract/limits';
import type { ImageSize } from '../domain/imageField';

const RASTER_FORMATS = new Set(['jpeg', 'png', 'webp', 'gif', 'avif', 'heif', 'tiff']);

/**
 * Answers the size as displayed (EXIF orientation 5–8 swaps width and height), the frame prompts are
 * given in; throws DomainError('invalid-image') with the reason otherwise. The pixel limit is the one
 * the worker's decoder applies too (contract LIMITS.imageMaxPixels).
 */
export async function checkImageHeader(bytes: Uint8Array): Promise<ImageSize> {
  try {
    const header = readImageHeader(bytes);
    const meta = header ?? (await sharp(bytes, { limitInputPixels: false }).metadata());
    // Raster formats only: a vector image (SVG) is a document that can reference other files and
    // URLs, and rendering it is a larger attack surface than the product needs.
    if (!meta.format || !RASTER_FORMATS.has(meta.format)) throw new Error(`format ${meta.format ?? 'unknown'} is not accepted`);
    if (!meta.width || !meta.height) throw new Error('no dimensions');
    // A decompression-bomb guard: a 1.5 MiB PNG can claim 100 megapixels, i.e. 400 MB of RGBA.
    const max = LIMITS.imageMaxPixels;
    if (meta.width * meta.height > max) {
      throw new DomainError('invalid-image', `the image is ${meta.width} × ${meta.height} pixels; at most ${max / 1e6} megapixels (${max.toLocaleString('en-US')} pixels) are accepted`);
    }
    // The size as the decoder shows it (sharp's own autoOrient, the rotation the worker's decode applies).
    const shown = header ?? ('autoOrient' in meta ? meta.autoOrient : undefined) ?? meta;
    return { width: shown.width, height: shown.height };
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw new DomainError(
      'invalid-image',
      `not a readable image (PNG, JPEG, WebP, GIF, AVIF or TIFF expected): ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
