import { describe, expect, it } from 'vitest';
import { PNG } from 'pngjs';
import { encodePng } from './png';

describe('PNG encoder', () => {
  it('writes a grayscale PNG that a real decoder reads back pixel for pixel', async () => {
    const width = 7;
    const height = 5;
    const pixels = new Uint8Array(width * height).map((_, i) => (i * 37) % 256);
    const png = PNG.sync.read(Buffer.from(await encodePng(width, height, pixels, 'gray')));
    expect([png.width, png.height]).toEqual([width, height]);
    for (let i = 0; i < width * height; i++) expect(png.data[i * 4]).toBe(pixels[i]);
  });

  it('writes RGBA', async () => {
    const pixels = new Uint8Array([255, 0, 0, 255, 0, 255, 0, 128]);
    const png = PNG.sync.read(Buffer.from(await encodePng(2, 1, pixels, 'rgba')));
    expect(Array.from(png.data)).toEqual(Array.from(pixels));
  });

  it('refuses a buffer of the wrong size', async () => {
    await expect(encodePng(2, 2, new Uint8Array(3), 'gray')).rejects.toThrow(/expected 4 bytes/);
  });
});
