import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { decodeImage, ImageDecodeError } from './nodeImage';
import { sharedPath } from '../../../test/support/sharedData';

describe('decodeImage', () => {
  it('decodes PNG and JPEG samples to RGBA', async () => {
    const png = await decodeImage(readFileSync(sharedPath('samples/coffee.png')));
    expect([png.width, png.height, png.data.length]).toEqual([600, 400, 600 * 400 * 4]);
    const jpg = await decodeImage(readFileSync(sharedPath('samples/rocket.jpg')));
    expect(jpg.data.length).toBe(jpg.width * jpg.height * 4);
  });

  it('decodes WebP and GIF and adds opaque alpha to RGB input', async () => {
    const rgb = { width: 8, height: 6, channels: 3 as const, background: { r: 10, g: 200, b: 30 } };
    for (const format of ['webp', 'gif'] as const) {
      const bytes = await sharp({ create: rgb }).toFormat(format).toBuffer();
      const image = await decodeImage(bytes);
      expect([image.width, image.height]).toEqual([8, 6]);
      expect(image.data[3]).toBe(255);
    }
  });

  it('applies EXIF orientation (coordinates as a browser shows the photo)', async () => {
    const bytes = await sharp({ create: { width: 40, height: 20, channels: 3, background: '#888' } })
      .jpeg()
      .withMetadata({ orientation: 6 }) // rotate 90° clockwise when displayed
      .toBuffer();
    const image = await decodeImage(bytes);
    expect([image.width, image.height]).toEqual([20, 40]);
  });

  it('rejects non-images, empty input and decompression bombs with ImageDecodeError', async () => {
    await expect(decodeImage(new TextEncoder().encode('hello, not a picture'))).rejects.toThrow(ImageDecodeError);
    await expect(decodeImage(new Uint8Array())).rejects.toThrow(/empty/);
    const big = await sharp({ create: { width: 3000, height: 3000, channels: 3, background: '#000' } }).png().toBuffer();
    await expect(decodeImage(big, { maxPixels: 1_000_000 })).rejects.toMatchObject({ name: 'ImageDecodeError', reason: 'too-large' });
    const png = readFileSync(sharedPath('samples/coffee.png'));
    await expect(decodeImage(png.subarray(0, 2000))).rejects.toThrow(ImageDecodeError); // truncated
  });
});
