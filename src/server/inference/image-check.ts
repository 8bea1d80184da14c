/**
 * The check an image seen for the first time passes before anything is charged: its header must be
 * that of a raster format we decode, with dimensions within the decompression-bomb guard. Reads the
 * header only (our own reader first, sharp's metadata for the formats it does not know); the full
 * decode happens in the worker. Lives with inference, not in the domain: the domain is given it.
 */
import sharp from 'sharp';
import { DomainError } from '../domain/errors';
import { readImageHeader } from './image-header';

/** Decompression-bomb guard (documented in the README): 64 megapixels, e.g. 8000 × 8000. */
export const MAX_IMAGE_PIXELS = 64_000_000;

const RASTER_FORMATS = new Set(['jpeg', 'png', 'webp', 'gif', 'avif', 'heif', 'tiff']);

/** Resolves for an acceptable image; throws DomainError('invalid-image') with the reason otherwise. */
export async function checkImageHeader(bytes: Uint8Array): Promise<void> {
  try {
    const meta = readImageHeader(bytes) ?? (await sharp(bytes, { limitInputPixels: false }).metadata());
    // Raster formats only: a vector image (SVG) is a document that can reference other files and
    // URLs, and rendering it is a larger attack surface than the product needs.
    if (!meta.format || !RASTER_FORMATS.has(meta.format)) throw new Error(`format ${meta.format ?? 'unknown'} is not accepted`);
    if (!meta.width || !meta.height) throw new Error('no dimensions');
    // Not a size rule of the spec (that is the character limit) but a decompression-bomb guard:
    // a 1.5 MiB PNG can claim 100 megapixels, i.e. 400 MB of RGBA in the worker.
    if (meta.width * meta.height > MAX_IMAGE_PIXELS) {
      throw new DomainError('invalid-image', `the image claims ${meta.width} × ${meta.height} pixels; at most ${MAX_IMAGE_PIXELS / 1e6} megapixels are decoded`);
    }
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw new DomainError(
      'invalid-image',
      `not a readable image (PNG, JPEG, WebP, GIF, AVIF or TIFF expected): ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
