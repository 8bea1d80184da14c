import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeBmp, encodeGrayBmp } from './bmp';

const GRABCUT = '../shared/eval/grabcut';

describe('decodeBmp', () => {
  it('reads an 8-bit palettized BMP with padded rows, top row first', () => {
    const width = 5; // 5 bytes per row, padded to 8
    const height = 3;
    const values = Uint8Array.from([0, 128, 255, 128, 0, 255, 255, 255, 0, 0, 1, 2, 3, 4, 5]);
    const bmp = decodeBmp(encodeGrayBmp(width, height, values));
    expect([bmp.width, bmp.height]).toEqual([width, height]);
    expect(Array.from(bmp.indices!)).toEqual(Array.from(values));
    expect(Array.from(bmp.rgba.subarray(4, 8))).toEqual([128, 128, 128, 255]);
  });

  it('reads a top-down 24-bit BMP (negative height) as RGBA', () => {
    const bytes = new Uint8Array(54 + 8 * 2);
    const view = new DataView(bytes.buffer);
    bytes.set([0x42, 0x4d]);
    view.setUint32(10, 54, true);
    view.setUint32(14, 40, true);
    view.setInt32(18, 2, true);
    view.setInt32(22, -2, true);
    view.setUint16(28, 24, true);
    // Row 0: red, green; row 1: blue, white (stored B, G, R; each row padded to 8 bytes).
    bytes.set([0, 0, 255, 0, 255, 0], 54);
    bytes.set([255, 0, 0, 255, 255, 255], 62);
    const bmp = decodeBmp(bytes);
    expect(Array.from(bmp.rgba)).toEqual([255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255]);
  });

  it('rejects what it cannot read, with a reason', () => {
    expect(() => decodeBmp(new Uint8Array(60))).toThrow(/not a BMP/);
    const rle = encodeGrayBmp(2, 2, new Uint8Array(4));
    new DataView(rle.buffer).setUint32(30, 1, true);
    expect(() => decodeBmp(rle)).toThrow(/compression/);
  });

  it.skipIf(!existsSync(GRABCUT))('reads the real GrabCut files: masks are 0/128/255, photos are 24-bit', () => {
    const mask = decodeBmp(readFileSync(`${GRABCUT}/masks/124080.bmp`));
    expect([mask.width, mask.height]).toEqual([481, 321]);
    expect(new Set(mask.indices)).toEqual(new Set([0, 128, 255]));
    const photo = decodeBmp(readFileSync(`${GRABCUT}/images/banana1.bmp`));
    expect([photo.width, photo.height]).toEqual([640, 480]);
    expect(new Set(photo.rgba.filter((_, i) => i % 4 !== 3)).size).toBeGreaterThan(100);
  });
});
