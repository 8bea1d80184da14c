/**
 * The `image` field: Base64, optionally behind a `data:<media_type>;base64,` prefix.
 * Strict: only the standard alphabet (URL-safe `-`/`_` tolerated), padding only at the end,
 * no whitespace. Node's own decoder silently skips bad characters, so the result is checked.
 */
import { createHash } from 'node:crypto';
import { DomainError } from './errors';

/** An uploaded image decoded once: its bytes go to the worker, their digest names it everywhere else. */
export interface Upload {
  bytes: Uint8Array;
  /** SHA-256 of the file's bytes, Base64: the request fingerprint's stand-in for the image, the worker's decoded-pixels key. */
  digest: string;
}

/** The image field as an Upload, or the 400 it deserves (kept, not thrown, so that callers choose when it is answered). */
export function readUpload(field: string): Upload | DomainError {
  try {
    const bytes = decodeImageField(field);
    return { bytes, digest: createHash('sha256').update(bytes).digest('base64') };
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
}

// Parameter values: anything but the separators and control characters (RFC 2045 forbids them).
const DATA_URI_PREFIX = /^data:([a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+)?((?:;[a-z0-9!#$&^_.+-]+=[^;,\x00-\x1f\x7f]*)*);base64,/i;

export function decodeImageField(value: string): Uint8Array {
  const prefix = DATA_URI_PREFIX.exec(value);
  if (!prefix && value.startsWith('data:')) {
    throw new DomainError('invalid-image', 'a data URI image must have the form data:<media_type>;base64,<data>');
  }
  const body = prefix ? value.slice(prefix[0].length) : value;
  if (body.length === 0) throw new DomainError('invalid-image', 'the image is empty');
  // Node's decoder (which reads both alphabets) skips characters outside them and stops at the
  // first '=' instead of failing, so the string is valid exactly when nothing was skipped: the
  // decoded length must be the one its length promises. One native pass, no regular expression
  // over a 2 MB string.
  const padding = body.endsWith('==') ? 2 : body.endsWith('=') ? 1 : 0;
  const data = body.length - padding;
  if (data % 4 === 1 || (padding > 0 && body.length % 4 !== 0)) {
    throw new DomainError('invalid-image', 'the image is not valid Base64');
  }
  const bytes = Buffer.from(body, 'base64');
  if (bytes.length !== Math.floor((data * 3) / 4)) throw new DomainError('invalid-image', 'the image is not valid Base64');
  if (bytes.length === 0) throw new DomainError('invalid-image', 'the image is empty');
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
