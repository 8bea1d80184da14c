/**
 * JSON.parse for metered bodies, minus the scan of the image. A body is mostly its `image`, a
 * Base64 string of up to 2 MB, and JSON.parse reads it character by character looking for escapes
 * (docs/RESULTS.md has the cost). When that string is plain ASCII without escapes its end is found
 * with one memchr; the rest of the body goes through JSON.parse with the string emptied, and the
 * image is left as a slice of the bytes (readMeteredJson), or put back as its Latin-1 string, which
 * for ASCII is the same string (parseMeteredJson).
 *
 * Whenever the shape is anything but that (no top-level `"image"` string, an escape or a non-ASCII
 * byte inside it, a second `image` key, a key with an escape that could spell `image`, not an
 * object at all), the whole body goes to JSON.parse as before: same value, same errors. One
 * difference is accepted: a raw control character inside the image string, which JSON forbids,
 * is left to the image's own Base64 check (400 invalid-image rather than 400 malformed-json).
 */
import { isAscii } from 'node:buffer';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function skipSpace(bytes: Buffer, i: number): number {
  while (i < bytes.length && isSpace(bytes[i])) i++;
  return i;
}

/** Index of the quote closing the string opened at `open`, or -1. */
function closingQuote(bytes: Buffer, open: number): number {
  let at = open;
  for (;;) {
    at = bytes.indexOf(QUOTE, at + 1);
    if (at === -1) return -1;
    let backslashes = 0;
    while (bytes[at - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}

/** Index just past the value starting at `i` (not validated: JSON.parse does that), or -1. */
function skipValue(bytes: Buffer, i: number): number {
  const first = bytes[i];
  if (first === QUOTE) {
    const close = closingQuote(bytes, i);
    return close === -1 ? -1 : close + 1;
  }
  if (first === 0x7b || first === 0x5b) {
    let depth = 0;
    for (let at = i; at < bytes.length; at++) {
      const byte = bytes[at];
      if (byte === QUOTE) {
        at = closingQuote(bytes, at);
        if (at === -1) return -1;
      } else if (byte === 0x7b || byte === 0x5b) depth++;
      else if (byte === 0x7d || byte === 0x5d) {
        depth--;
        if (depth === 0) return at + 1;
      }
    }
    return -1;
  }
  let at = i;
  while (at < bytes.length && !isSpace(bytes[at]) && bytes[at] !== 0x2c && bytes[at] !== 0x7d && bytes[at] !== 0x5d) at++;
  return at === i ? -1 : at;
}

/** [start, end) of the top-level "image" string's characters, when the fast path may take it. */
export function imageSpan(bytes: Buffer): [number, number] | undefined {
  let i = skipSpace(bytes, 0);
  if (bytes[i] !== 0x7b) return undefined;
  i = skipSpace(bytes, i + 1);
  if (bytes[i] === 0x7d) return undefined;
  let span: [number, number] | undefined;
  for (;;) {
    if (bytes[i] !== QUOTE) return undefined;
    const keyEnd = closingQuote(bytes, i);
    if (keyEnd === -1) return undefined;
    // Searched within the key only: an unbounded search would scan the image behind it for every key.
    if (bytes.subarray(i + 1, keyEnd).includes(BACKSLASH)) return undefined;
    const isImage = keyEnd - i - 1 === 5 && bytes.toString('latin1', i + 1, keyEnd) === 'image';
    i = skipSpace(bytes, keyEnd + 1);
    if (bytes[i] !== 0x3a) return undefined;
    i = skipSpace(bytes, i + 1);
    const valueEnd = skipValue(bytes, i);
    if (valueEnd === -1) return undefined;
    if (isImage) {
      if (span || bytes[i] !== QUOTE) return undefined;
      const content = bytes.subarray(i + 1, valueEnd - 1);
      if (content.includes(BACKSLASH) || !isAscii(content)) return undefined;
      span = [i + 1, valueEnd - 1];
    }
    i = skipSpace(bytes, valueEnd);
    if (bytes[i] === 0x2c) {
      i = skipSpace(bytes, i + 1);
      continue;
    }
    if (bytes[i] === 0x7d) return span;
    return undefined;
  }
}

/**
 * A metered body read without turning its image into a JS string: when the fast path applies,
 * `value` lacks its `image` member and `image` holds that string's characters, as the body's own
 * bytes (ASCII, no escapes, so one byte per character). Copying 2 MB into a string costs as much as
 * hashing it, and a known image needs nothing else (see domain/imageField.ts).
 */
export interface MeteredJson {
  value: unknown;
  image?: Buffer;
}

/** Reads the body (throws JSON.parse's SyntaxError on malformed JSON). */
export function readMeteredJson(bytes: Buffer): MeteredJson {
  const span = imageSpan(bytes);
  if (!span) return { value: JSON.parse(bytes.toString('utf8')) };
  const [start, end] = span;
  const value = JSON.parse(bytes.toString('utf8', 0, start) + bytes.toString('utf8', end)) as Record<string, unknown>;
  delete value.image;
  return { value, image: bytes.subarray(start, end) };
}

/** The body's JSON value, image included: what JSON.parse would give. */
export function parseMeteredJson(bytes: Buffer): unknown {
  const { value, image } = readMeteredJson(bytes);
  if (image) (value as Record<string, unknown>).image = image.toString('latin1');
  return value;
}
