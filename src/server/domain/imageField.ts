/**
 * The `image` field: Base64, optionally behind a `data:<media_type>;base64,` prefix.
 * Strict: only the standard alphabet (URL-safe `-`/`_` tolerated), padding only at the end,
 * no whitespace. Node's own decoder silently skips bad characters, so the result is checked.
 */
import { createHash } from 'node:crypto';
import { LruCache } from '../../engine/lru';
import { DomainError } from './errors';

/**
 * The `image` field as received: the string, or its characters as bytes of the request body when
 * the body was read without materialising the string (ASCII only, one byte per character).
 */
export type ImageField = string | Buffer;

/** A request whose image field may still be bytes of its body. */
export type WithImageField<R extends { image: string }> = Omit<R, 'image'> & { image: ImageField };

/** An uploaded image as far as it has been read. */
export interface Upload {
  /**
   * The image's name, derived from its whole content and never from the client: the SHA-256
   * (Base64) of the decoded file's bytes. It names the image in the request fingerprint (so one
   * photo sent as a data URI and as bare Base64 is one request), in the decoded-pixels
   * cache and, as `contentKey`, in the engine's embedding cache. A field that is not Base64 has no
   * decoded bytes; it is named by its characters (`field:` + their digest) and answered 400.
   */
  digest: string;
  /** SHA-256 of the field's characters: how a field seen before is recognised without decoding it. */
  fieldDigest: string;
  /** The decoded file, when this field had to be decoded here (first sight); absent for a known image. */
  bytes?: Uint8Array;
  /** Pixel size as displayed (EXIF orientation applied), of a known image: checked prompts need it before any charge. */
  size?: ImageSize;
  /** Why the field is not an image: answered 400 before anything is claimed. */
  error?: DomainError;
}

export interface ImageSize {
  width: number;
  height: number;
}

/** What a field that passed the header check turned out to be. */
export interface KnownImage extends ImageSize {
  /** SHA-256 of the decoded file (Upload.digest). */
  digest: string;
}

/** Where fields already checked are remembered (KnownImages, or one account's part of it). */
export interface ImageMemo {
  get(fieldDigest: string): KnownImage | undefined;
  add(fieldDigest: string, image: KnownImage): void;
  forget(fieldDigest: string): void;
}

/**
 * Fields that decoded to a file with a readable image header, by the digest of their characters:
 * sent again (the imageId flow sends the same photo with every click), such a field is neither
 * decoded nor checked again; its content digest and size come from here, and the worker is asked
 * for its pixels by that digest. Bounded; least recently used out.
 */
export class KnownImages implements ImageMemo {
  private readonly byField: LruCache<string, KnownImage>;

  constructor(capacity = 4096) {
    this.byField = new LruCache(capacity);
  }

  get(fieldDigest: string): KnownImage | undefined {
    return this.byField.get(fieldDigest);
  }

  add(fieldDigest: string, image: KnownImage): void {
    this.byField.set(fieldDigest, image);
  }

  /** The worker could not decode what the header check let through: check it again next time. */
  forget(fieldDigest: string): void {
    this.byField.delete(fieldDigest);
  }

  /**
   * One scope's (account's) part: a field another scope sent is not known here, so whether a call
   * skips the decode and the header check never tells one account what another sent.
   */
  scoped(scope: string): ImageMemo {
    const key = (fieldDigest: string) => `${scope}\u0000${fieldDigest}`;
    return {
      get: (fieldDigest) => this.get(key(fieldDigest)),
      add: (fieldDigest, image) => this.add(key(fieldDigest), image),
      forget: (fieldDigest) => this.forget(key(fieldDigest)),
    };
  }
}

export function imageFieldDigest(field: ImageField): string {
  return createHash('sha256').update(field).digest('base64');
}

/**
 * The last image field sent under each name (the account and its imageId), with its digest: the
 * same field sent again byte for byte, as with every click of the imageId flow, is recognised by
 * comparing bytes (one memcmp, far cheaper than a hash: docs/RESULTS.md) instead of hashing them again. Equal
 * bytes have the same digest, so nothing here is trusted that was not computed from them. Only
 * fields read as bytes are kept (strings take the hash). Bounded by bytes, least recently used out.
 */
export class RecentFields {
  private readonly byName: LruCache<string, { bytes: Buffer; digest: string }>;

  constructor(private readonly budgetBytes = 64 * 1024 * 1024) {
    this.byName = new LruCache(budgetBytes, (entry) => entry.bytes.length);
  }

  /** The field's digest: remembered when these very bytes came last under `name`, else computed (and remembered). */
  digest(name: string, field: ImageField): string {
    if (typeof field === 'string') return imageFieldDigest(field);
    const last = this.byName.get(name);
    if (last?.bytes.equals(field)) return last.digest;
    this.byName.delete(name);
    const digest = imageFieldDigest(field);
    if (field.length <= this.budgetBytes / 8) this.byName.set(name, { bytes: Buffer.from(field), digest });
    return digest;
  }
}

/** SHA-256 (Base64) of a decoded file: the image's content digest. */
export function contentDigest(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('base64');
}

/**
 * The image field as an Upload: its characters hashed (or recognised by `recent` under `name`);
 * a field `known` has seen takes its content digest from there, any other is decoded and its bytes
 * hashed. A field that is not Base64 keeps its 400 in `error` (not thrown, so that callers choose
 * when it is answered).
 */
export function readUpload(field: ImageField, known?: ImageMemo, recent?: { fields: RecentFields; name: string }): Upload {
  const fieldDigest = recent ? recent.fields.digest(recent.name, field) : imageFieldDigest(field);
  const seen = known?.get(fieldDigest);
  if (seen) return { digest: seen.digest, fieldDigest, size: { width: seen.width, height: seen.height } };
  try {
    const bytes = decodeImageField(field);
    return { digest: contentDigest(bytes), fieldDigest, bytes };
  } catch (error) {
    if (error instanceof DomainError) return { digest: `field:${fieldDigest}`, fieldDigest, error };
    throw error;
  }
}

// Parameter values: anything but the separators and control characters (RFC 2045 forbids them).
const DATA_URI_PREFIX = /^data:([a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+)?((?:;[a-z0-9!#$&^_.+-]+=[^;,\x00-\x1f\x7f]*)*);base64,/i;

export function decodeImageField(field: ImageField): Uint8Array {
  const value = typeof field === 'string' ? field : field.toString('latin1');
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
