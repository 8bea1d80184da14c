/**
 * Format and pixel size read from the first bytes of PNG, GIF, JPEG and WebP files, in this thread:
 * the check before a charge then costs microseconds instead of a round trip to sharp's thread pool.
 * Answers undefined for any other format, a header it cannot read, or a file carrying EXIF (whose
 * orientation may swap width and height as displayed), wherever in the file it sits; the caller
 * then asks sharp, which decodes the pixels too and stays the authority (AVIF, TIFF, photos with
 * EXIF and anything unusual go through it).
 */
import { crc32 } from 'node:zlib';

export interface ImageHeader {
  readonly format: 'png' | 'gif' | 'jpeg' | 'webp';
  readonly width: number;
  readonly height: number;
}

const u16be = (b: Uint8Array, i: number) => (b[i] << 8) | b[i + 1];
const u16le = (b: Uint8Array, i: number) => b[i] | (b[i + 1] << 8);
const u24le = (b: Uint8Array, i: number) => b[i] | (b[i + 1] << 8) | (b[i + 2] << 16);
const u32be = (b: Uint8Array, i: number) => ((b[i] << 24) >>> 0) + (b[i + 1] << 16) + (b[i + 2] << 8) + b[i + 3];
const ascii = (b: Uint8Array, i: number, text: string) => [...text].every((c, k) => b[i + k] === c.charCodeAt(0));

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** Start-of-frame markers (baseline, progressive, lossless, arithmetic); not DHT (C4), JPG (C8), DAC (CC). */
const JPEG_SOF = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

/**
 * The CRC of every chunk up to and including the first IDAT is right — what sharp (libspng) checks
 * when it reads a PNG's header, so both refuse the same damaged files before anything is charged.
 */
function pngChunksIntact(b: Uint8Array): boolean {
  let i = 8;
  while (i + 12 <= b.length) {
    const length = u32be(b, i);
    const end = i + 8 + length;
    if (end + 4 > b.length) return false;
    if (crc32(b.subarray(i + 4, end)) !== u32be(b, end)) return false;
    if (ascii(b, i + 4, 'IDAT')) return true;
    if (ascii(b, i + 4, 'eXIf')) return false; // an orientation: sharp reads it
    i = end + 4;
  }
  return false;
}

export function readImageHeader(b: Uint8Array): ImageHeader | undefined {
  const found = (format: ImageHeader['format'], width: number, height: number): ImageHeader | undefined =>
    width > 0 && height > 0 ? { format, width, height } : undefined;
  if (b.length >= 24 && PNG_SIGNATURE.every((v, i) => b[i] === v) && ascii(b, 12, 'IHDR')) {
    return pngChunksIntact(b) ? found('png', u32be(b, 16), u32be(b, 20)) : undefined;
  }
  if (b.length >= 10 && (ascii(b, 0, 'GIF87a') || ascii(b, 0, 'GIF89a'))) return found('gif', u16le(b, 6), u16le(b, 8));
  if (b.length >= 30 && ascii(b, 0, 'RIFF') && ascii(b, 8, 'WEBP')) {
    if (ascii(b, 12, 'VP8 ') && b[23] === 0x9d && b[24] === 0x01 && b[25] === 0x2a) {
      return found('webp', u16le(b, 26) & 0x3fff, u16le(b, 28) & 0x3fff);
    }
    if (ascii(b, 12, 'VP8L') && b[20] === 0x2f) {
      return found('webp', 1 + (((b[22] & 0x3f) << 8) | b[21]), 1 + (((b[24] & 0x0f) << 10) | (b[23] << 2) | ((b[22] & 0xc0) >> 6)));
    }
    // VP8X flag 0x08: the file carries EXIF (an orientation): sharp reads it.
    if (ascii(b, 12, 'VP8X') && !(b[20] & 0x08)) return found('webp', 1 + u24le(b, 24), 1 + u24le(b, 27));
    return undefined;
  }
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) return readJpegHeader(b, found);
  return undefined;
}

const EXIF_IDENTIFIER = Buffer.from('Exif\0\0', 'latin1');

/**
 * The frame header's size, but only of a JPEG without EXIF anywhere: libjpeg reads every marker up
 * to the first scan, so an orientation after the frame header turns the photo just as one before
 * it does (and a reader that stops at the frame header would answer the stored size, not the one
 * the decoder gives). Any "Exif" identifier in the file, even in a place no decoder reads, sends
 * the file to sharp.
 */
function readJpegHeader(b: Uint8Array, found: (format: 'jpeg', width: number, height: number) => ImageHeader | undefined): ImageHeader | undefined {
  if (Buffer.from(b.buffer, b.byteOffset, b.byteLength).indexOf(EXIF_IDENTIFIER) !== -1) return undefined;
  let frame: { width: number; height: number } | undefined;
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return undefined;
    const marker = b[i + 1];
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    // Entropy-coded data starts at SOS: every marker the decoder reads before pixels came before.
    if (marker === 0xda) return frame && found('jpeg', frame.width, frame.height);
    if (marker === 0xd9) return undefined;
    if (JPEG_SOF.has(marker)) {
      if (frame) return undefined; // two frame headers: not a file to guess about
      frame = { width: u16be(b, i + 7), height: u16be(b, i + 5) };
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    i += 2 + u16be(b, i + 2);
  }
  return undefined;
}
