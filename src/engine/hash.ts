/**
 * A fast 64-bit content hash of an image's pixels (two independent 32-bit multiply-xorshift lanes
 * over 32-bit words), used as the embedding-cache key when the client gives no imageId. Not
 * cryptographic: it only has to tell different images apart, and runs in a few ms on megapixels
 * without DOM or Node crypto. For the one person in a browser only: where images come from
 * strangers (the server), an image can be crafted to collide with it or with the sampled
 * fingerprint below, so the server names images by the SHA-256 of their bytes instead and passes
 * that as the cache key (server/domain/segmentation.ts `contentKey`).
 */
import type { RgbaImage } from './types';

function words(bytes: Uint8Array | Uint8ClampedArray): { words: Uint32Array; tail: Uint8Array } {
  const n = bytes.length >>> 2;
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : new Uint8Array(bytes);
  return {
    words: new Uint32Array(aligned.buffer, aligned.byteOffset, n),
    tail: new Uint8Array(aligned.buffer, aligned.byteOffset + n * 4, bytes.length - n * 4),
  };
}

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export function hashBytes(bytes: Uint8Array | Uint8ClampedArray, seed = 0): string {
  const { words: w, tail } = words(bytes);
  let h1 = (0x9e3779b9 ^ seed) | 0;
  let h2 = (0x85ebca77 ^ bytes.length) | 0;
  for (let i = 0; i < w.length; i++) {
    const k = w[i];
    h1 = Math.imul(h1 ^ k, 0x2c1b3c6d) + 0x297a2d39;
    h1 = (h1 << 13) | (h1 >>> 19);
    h2 = Math.imul(h2 + k, 0x297a2d39) ^ 0x7f4a7c15;
    h2 = (h2 << 17) | (h2 >>> 15);
  }
  for (let i = 0; i < tail.length; i++) {
    h1 = Math.imul(h1 ^ tail[i], 0x2c1b3c6d);
    h2 = Math.imul(h2 + tail[i], 0x297a2d39);
  }
  h1 = fmix32(h1 ^ h2);
  h2 = fmix32(h2 ^ h1 ^ bytes.length);
  return h1.toString(16).padStart(8, '0') + h2.toString(16).padStart(8, '0');
}

/** "px64:<width>x<height>:<16 hex digits>" */
export function imageContentKey(image: RgbaImage): string {
  return `px64:${image.width}x${image.height}:${hashBytes(image.data)}`;
}

/**
 * Size plus a hash of up to 4096 pixels sampled on a fixed stride: O(1) whatever the image size.
 * Tells apart different photos cached under one client-given imageId.
 */
export function imageFingerprint(image: RgbaImage, samples = 4096): string {
  const pixels = image.width * image.height;
  const stride = Math.max(1, Math.floor(pixels / samples));
  const n = Math.min(samples, pixels);
  const picked = new Uint8Array(n * 4);
  for (let i = 0; i < n; i++) {
    const p = ((i * stride) % pixels) * 4;
    picked[i * 4] = image.data[p];
    picked[i * 4 + 1] = image.data[p + 1];
    picked[i * 4 + 2] = image.data[p + 2];
    picked[i * 4 + 3] = image.data[p + 3];
  }
  return `${image.width}x${image.height}:${hashBytes(picked)}`;
}
