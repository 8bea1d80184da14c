import { describe, expect, it } from 'vitest';
import { imageContentKey, imageFingerprint } from './hash';
import { LruCache } from './lru';

describe('LruCache', () => {
  it('evicts the least recently used entry; get refreshes, peek does not', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1); // a is now newest
    cache.set('c', 3); // evicts b
    expect(cache.keys()).toEqual(['a', 'c']);
    expect(cache.peek('a')).toBe(1); // does not refresh
    cache.set('d', 4); // evicts a
    expect(cache.has('a')).toBe(false);
    expect(cache.keys()).toEqual(['c', 'd']);
  });

  it('refuses a capacity below 1', () => {
    expect(() => new LruCache(0)).toThrow(RangeError);
  });

  it('bounded by weight: evicts the least recently used until the entries weigh at most the capacity', () => {
    const cache = new LruCache<string, Uint8Array>(1000, (bytes) => bytes.byteLength);
    cache.set('a', new Uint8Array(400));
    cache.set('b', new Uint8Array(400));
    cache.get('a'); // a is now newest
    cache.set('c', new Uint8Array(400)); // 1200 > 1000: b goes
    expect(cache.keys()).toEqual(['a', 'c']);
    cache.set('a', new Uint8Array(100)); // replacing an entry counts its new weight only
    cache.set('d', new Uint8Array(500)); // 100 + 400 + 500 = 1000: nothing goes
    expect(cache.keys()).toEqual(['c', 'a', 'd']);
    cache.delete('c');
    cache.set('e', new Uint8Array(400)); // 100 + 500 + 400 = 1000
    expect(cache.keys()).toEqual(['a', 'd', 'e']);
    cache.set('e', new Uint8Array(1001)); // heavier than the whole capacity: not kept, the old 'e' gone, nothing else evicted
    expect(cache.keys()).toEqual(['a', 'd']);
  });
});

describe('imageContentKey', () => {
  it('is stable for equal pixels and differs when one byte or the shape changes', () => {
    const data = new Uint8Array(64 * 48 * 4).map((_, i) => (i * 37) & 255);
    const a = imageContentKey({ width: 64, height: 48, data });
    expect(imageContentKey({ width: 64, height: 48, data: new Uint8Array(data) })).toBe(a);
    const changed = new Uint8Array(data);
    changed[1000] ^= 1;
    expect(imageContentKey({ width: 64, height: 48, data: changed })).not.toBe(a);
    expect(imageContentKey({ width: 48, height: 64, data })).not.toBe(a);
    expect(a).toMatch(/^px64:64x48:[0-9a-f]{16}$/);
  });

  it('hashes unaligned views', () => {
    const buffer = new Uint8Array(1 + 4 * 9);
    buffer.set([1, 2, 3, 4, 5], 1);
    const view = buffer.subarray(1);
    expect(imageContentKey({ width: 3, height: 3, data: view })).toBe(imageContentKey({ width: 3, height: 3, data: new Uint8Array(view) }));
  });
});

describe('imageFingerprint', () => {
  it('samples a bounded number of pixels and tells apart different pictures of one size', () => {
    const a = new Uint8Array(1000 * 800 * 4).map((_, i) => (i * 31) & 255);
    const b = new Uint8Array(a).reverse();
    expect(imageFingerprint({ width: 1000, height: 800, data: a })).toBe(imageFingerprint({ width: 1000, height: 800, data: new Uint8Array(a) }));
    expect(imageFingerprint({ width: 1000, height: 800, data: a })).not.toBe(imageFingerprint({ width: 1000, height: 800, data: b }));
    expect(imageFingerprint({ width: 1, height: 1, data: new Uint8Array([1, 2, 3, 4]) })).toMatch(/^1x1:/);
  });
});
