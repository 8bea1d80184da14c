/**
 * The `image` field: Base64, optionally behind a `data:<media_type>;base64,` prefix.
 * Strict: only the standard alphabet (URL-safe `-`/`_` tolerated), padding only at the end,
 * no whitespace. Node's own decoder silently skips bad characters, so the result is checked.
 */
import { DomainError } from './errors';

const DATA_URI_PREFIX = /^data:([a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+)?((?:;[a-z0-9!#$&^_.+-]+=[^;,]*)*);base64,/i;

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
