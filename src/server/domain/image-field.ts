/**
 * The `image` field: Base64, optionally behind a `data:<media_type>;base64,` prefix.
 * Strict: only the standard alphabet (URL-safe `-`/`_` tolerated), padding only at the end,
 * no whitespace. Node's own decoder silently skips bad characters, so we check first.
 */
import { DomainError } from './errors';

const DATA_URI_PREFIX = /^data:([a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+)?((?:;[a-z0-9!#$&^_.+-]+=[^;,]*)*);base64,/i;
const BASE64_BODY = /^[A-Za-z0-9+/\-_]*={0,2}$/;

export function decodeImageField(value: string): Uint8Array {
  const prefix = DATA_URI_PREFIX.exec(value);
  if (!prefix && value.startsWith('data:')) {
    throw new DomainError('invalid-image', 'a data URI image must have the form data:<media_type>;base64,<data>');
  }
  const body = prefix ? value.slice(prefix[0].length) : value;
  if (body.length === 0) throw new DomainError('invalid-image', 'the image is empty');
  if (!BASE64_BODY.test(body) || body.length % 4 === 1) {
    throw new DomainError('invalid-image', 'the image is not valid Base64');
  }
  const bytes = Buffer.from(body, body.includes('-') || body.includes('_') ? 'base64url' : 'base64');
  if (bytes.length === 0) throw new DomainError('invalid-image', 'the image is empty');
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
