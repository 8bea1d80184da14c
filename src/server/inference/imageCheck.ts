/**
 * The check an image seen for the first time passes before anything is charged or stored: its header
 * must be that of a raster format we decode, with dimensions within the pixel limit, and then the
 * whole file must decode, every frame of it, under the decoder's own pixel limit. The header alone
 * is not enough: a GIF's header gives its logical screen (100 × 100) while its frame may be
 * 16300 × 16300, and a truncated PNG or JPEG has a perfect header. The probe decodes in sharp's
 * thread pool, streaming into a small output, so its memory stays small whatever the image.
 * Lives with inference, not in the domain: the domain is given it.
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
    await decodeEveryFrame(bytes);
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

/** Longest side of the probe's output: the decoder reads every pixel of the input, and writes next to nothing. */
const PROBE_SIDE = 64;

/**
 * Decodes every frame (`pages: -1`: all of a GIF's, WebP's or TIFF's frames count towards the pixel
 * limit together) and fails on a truncated or corrupt file instead of filling the rest with grey.
 */
export async function decodeEveryFrame(bytes: Uint8Array): Promise<void> {
  try {
    await sharp(bytes, { pages: -1, limitInputPixels: LIMITS.imageMaxPixels, failOn: 'truncated', sequentialRead: true })
      .resize(PROBE_SIDE, PROBE_SIDE, { fit: 'inside' })
      .raw()
      .toBuffer();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const message = /pixel limit/i.test(reason)
      ? `the image's frames hold more than ${LIMITS.imageMaxPixels / 1e6} megapixels (${LIMITS.imageMaxPixels.toLocaleString('en-US')} pixels, all frames together) once decoded`
      : `the image does not decode to the end (truncated or corrupt): ${reason}`;
    throw new DomainError('invalid-image', message);
  }
}
