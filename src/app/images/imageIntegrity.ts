/**
 * Browsers draw a truncated JPEG or PNG without an error (the missing rows come out grey), so a cut
 * download would be segmented silently. The formats say where they end; a file that stops before
 * its end marker is refused by name.
 */
const JPEG_SOI = [0xff, 0xd8];
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const PNG_IEND = [0x49, 0x45, 0x4e, 0x44]; // "IEND"

const startsWith = (bytes: Uint8Array, prefix: readonly number[]) => prefix.every((b, i) => bytes[i] === b);

/** Bytes at the end a JPEG may carry after its EOI marker (padding some cameras and tools add). */
const TRAILING_SLACK = 4096;

function jpegHasEnd(bytes: Uint8Array): boolean {
  const from = Math.max(2, bytes.length - TRAILING_SLACK);
  for (let i = bytes.length - 2; i >= from; i--) if (bytes[i] === 0xff && bytes[i + 1] === 0xd9) return true;
  return false;
}

function pngHasEnd(bytes: Uint8Array): boolean {
  // IEND is the last chunk: 4-byte length (0), "IEND", 4-byte CRC.
  const at = bytes.length - 8;
  return at > PNG_SIGNATURE.length && PNG_IEND.every((b, i) => bytes[at + i] === b);
}

/** null when the file is whole (or a format we do not check); otherwise why it is not. */
export function truncationProblem(bytes: Uint8Array): string | null {
  if (startsWith(bytes, JPEG_SOI)) return jpegHasEnd(bytes) ? null : 'the JPEG is truncated (it ends before its image data does)';
  if (startsWith(bytes, PNG_SIGNATURE)) return pngHasEnd(bytes) ? null : 'the PNG is truncated (it ends before its last chunk)';
  return null;
}
