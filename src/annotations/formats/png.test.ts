import { describe, expect, it } from 'vitest';
import { PNG } from 'pngjs';
import { decodePng, encodePng, gray16Bytes } from './png';

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

  it('writes 16-bit grayscale (masks of more than 255 objects) that a real decoder reads back, and reads it itself', async () => {
    const width = 9;
    const height = 4;
    const values = Uint16Array.from({ length: width * height }, (_, i) => (i * 2039) % 65536);
    const bytes = await encodePng(width, height, gray16Bytes(values), 'gray16');
    const png = PNG.sync.read(Buffer.from(bytes), { skipRescale: true });
    expect(png.depth).toBe(16);
    expect(Array.from({ length: width * height }, (_, i) => png.data[i * 4])).toEqual([...values]);
    const ours = await decodePng(bytes);
    expect([...ours.samples16!]).toEqual([...values]);
  });

  it('reads a 16-bit grayscale PNG another encoder filtered', async () => {
    const source = new PNG({ width: 5, height: 3, bitDepth: 16, colorType: 0, inputColorType: 0, inputHasAlpha: false });
    const values = [0, 1, 255, 256, 300, 65535, 1000, 2, 3, 4, 40000, 5, 6, 7, 8];
    const data = Buffer.alloc(values.length * 2);
    values.forEach((v, i) => data.writeUInt16LE(v, i * 2)); // pngjs takes 16-bit input in the machine's order
    source.data = data;
    const encoded = PNG.sync.write(source, { bitDepth: 16, colorType: 0, inputColorType: 0, inputHasAlpha: false });
    expect([...(await decodePng(new Uint8Array(encoded))).samples16!]).toEqual(values);
  });

  it('refuses a buffer of the wrong size', async () => {
    await expect(encodePng(2, 2, new Uint8Array(3), 'gray')).rejects.toThrow(/expected 4 bytes/);
  });
});
