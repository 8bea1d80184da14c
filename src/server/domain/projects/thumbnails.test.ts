import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { SAMPLES_DIR } from '../../../../test/support/server/harness';
import { renderThumbnail, THUMBNAIL_MAX_SIDE, ThumbnailCache } from './thumbnails';

const sample = (name: string) => new Uint8Array(readFileSync(join(SAMPLES_DIR, name)));

describe('renderThumbnail', () => {
  it('shrinks a photo to fit the bounding square, keeping its aspect, as WebP far smaller than the file', async () => {
    const file = sample('chelsea.png'); // 451 × 300
    const thumbnail = await renderThumbnail(file);
    const meta = await sharp(thumbnail).metadata();
    expect(meta).toMatchObject({ format: 'webp', width: THUMBNAIL_MAX_SIDE, height: Math.round((300 / 451) * THUMBNAIL_MAX_SIDE) });
    expect(thumbnail.byteLength).toBeLessThan(file.byteLength / 20);
  });

  it('turns the photo as its EXIF orientation says, as the browser shows it', async () => {
    const sideways = await sharp({ create: { width: 300, height: 150, channels: 3, background: '#3366cc' } }).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    expect(await sharp(await renderThumbnail(sideways)).metadata()).toMatchObject({ width: 64, height: THUMBNAIL_MAX_SIDE });
  });

  it('never enlarges a small image', async () => {
    const small = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#000' } }).png().toBuffer();
    expect(await sharp(await renderThumbnail(small)).metadata()).toMatchObject({ width: 40, height: 30 });
  });
});

describe('ThumbnailCache', () => {
  function counting() {
    const rendered: number[] = [];
    const cache = new ThumbnailCache(1000, async (file) => {
      rendered.push(file[0]);
      return Buffer.alloc(400, file[0]);
    });
    const get = (n: number) => cache.get(`d${n}`, async () => new Uint8Array([n]));
    return { cache, rendered, get };
  }

  it('renders a file once, for requests at the same time and after', async () => {
    const { rendered, get } = counting();
    const [first, second] = await Promise.all([get(1), get(1)]);
    expect(await get(1)).toBe(first);
    expect(second).toBe(first);
    expect(rendered).toEqual([1]);
  });

  it('drops the least recently used once over its byte bound', async () => {
    const { cache, rendered, get } = counting();
    await get(1);
    await get(2);
    await get(1); // 1 is now the most recent
    await get(3); // 1200 bytes > 1000: 2 goes
    expect(cache.cached()).toEqual(['d1', 'd3']);
    await get(2);
    expect(rendered).toEqual([1, 2, 3, 2]);
  });

  it('keeps nothing of a failed rendering: the next request tries again', async () => {
    let calls = 0;
    const cache = new ThumbnailCache(1000, async () => {
      calls++;
      if (calls === 1) throw new Error('not an image');
      return Buffer.alloc(10);
    });
    await expect(cache.get('d', async () => new Uint8Array([0]))).rejects.toThrow('not an image');
    expect((await cache.get('d', async () => new Uint8Array([0]))).byteLength).toBe(10);
  });
});
