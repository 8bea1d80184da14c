import { crc32, deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { PNG } from 'pngjs';
import { readPngLabels } from './pngLabels';

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  out.set(data, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

function splitChunks(png: Buffer): { type: string; data: Buffer }[] {
  const chunks = [];
  for (let offset = 8; offset < png.length; ) {
    const length = png.readUInt32BE(offset);
    chunks.push({ type: png.toString('latin1', offset + 4, offset + 8), data: png.subarray(offset + 8, offset + 8 + length) });
    offset += 12 + length;
  }
  return chunks;
}

/** A palette whose entries 0 and 1 are both black, so colour alone cannot tell index 1 from 0. */
function palette(colors: number): Buffer {
  const entries = Buffer.alloc(colors * 3);
  for (let i = 2; i < colors; i++) entries.set([i * 40, 255 - i * 30, i * 10], i * 3);
  return entries;
}

/**
 * A palette PNG made by pngjs as an 8-bit grayscale image (same byte layout as 8-bit palette
 * indices, written with the requested PNG row filter), then relabelled as colour type 3 with a PLTE.
 */
function palettePngViaPngjs(width: number, height: number, indices: Uint8Array, filterType: number): Buffer {
  const gray = new PNG({ width, height });
  const png = PNG.sync.write(Object.assign(gray, { data: Buffer.from(indices) }), { colorType: 0, inputColorType: 0, filterType });
  const parts = splitChunks(png).map(({ type, data }) => {
    if (type !== 'IHDR') return chunk(type, data);
    const header = Buffer.from(data);
    header[9] = 3;
    return Buffer.concat([chunk('IHDR', header), chunk('PLTE', palette(8))]);
  });
  return Buffer.concat([png.subarray(0, 8), ...parts]);
}

describe('readPngLabels', () => {
  const width = 7;
  const height = 5;
  const indices = Uint8Array.from({ length: width * height }, (_, i) => (i * 7 + Math.floor(i / 3)) % 8);

  for (const filterType of [0, 1, 2, 3, 4]) {
    it(`returns palette indices of an 8-bit palette PNG (row filter ${filterType})`, () => {
      const labels = readPngLabels(palettePngViaPngjs(width, height, indices, filterType));
      expect(labels.width).toBe(width);
      expect(labels.height).toBe(height);
      expect(Array.from(labels.labels)).toEqual(Array.from(indices));
    });
  }

  it('unpacks 4-bit palette indices', () => {
    const values = [0, 1, 2, 3, 1, 0, 3, 2, 1]; // 3x3, rows padded to whole bytes
    const rows = [0, 1, 2].map((y) => {
      const [a, b, c] = values.slice(y * 3, y * 3 + 3);
      return [0, (a << 4) | b, c << 4];
    });
    const header = Buffer.alloc(13);
    header.writeUInt32BE(3, 0);
    header.writeUInt32BE(3, 4);
    header.set([4, 3, 0, 0, 0], 8);
    const png = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk('IHDR', header),
      chunk('PLTE', palette(4)),
      chunk('IDAT', deflateSync(Buffer.from(rows.flat()))),
      chunk('IEND', new Uint8Array(0)),
    ]);
    expect(Array.from(readPngLabels(png).labels)).toEqual(values);
  });

  it('treats any non-zero colour as object in non-palette PNGs', () => {
    const rgba = new PNG({ width: 2, height: 1 });
    rgba.data = Buffer.from([0, 0, 0, 255, 0, 0, 3, 255]);
    expect(Array.from(readPngLabels(PNG.sync.write(rgba)).labels)).toEqual([0, 1]);
  });

  it('rejects a file that is not a PNG', () => {
    expect(() => readPngLabels(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]))).toThrow(/not a PNG/);
  });
});
