/** The in-thread header reader agrees with sharp on real files of every format it reads. */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jpegWithExifAfterFrameHeader, SAMPLES_DIR } from '../../../test/support/server/harness';
import { readImageHeader } from './imageHeader';

const chelsea = readFileSync(join(SAMPLES_DIR, 'chelsea.png'));

describe('readImageHeader', () => {
  it('reads format and size of PNG, JPEG (baseline and progressive), GIF and WebP (lossy, lossless, extended) as sharp does', async () => {
    const base = sharp(chelsea).resize(123, 77, { fit: 'fill' });
    const files: Record<string, Buffer> = {
      png: await base.clone().png().toBuffer(),
      jpeg: await base.clone().jpeg().toBuffer(),
      'jpeg progressive': await base.clone().jpeg({ progressive: true }).toBuffer(),
      gif: await base.clone().gif().toBuffer(),
      'webp lossy': await base.clone().webp().toBuffer(),
      'webp lossless': await base.clone().webp({ lossless: true }).toBuffer(),
      'webp with alpha (extended)': await base.clone().ensureAlpha(0.5).webp({ alphaQuality: 50 }).toBuffer(),
      'real jpeg': readFileSync(join(SAMPLES_DIR, 'rocket.jpg')),
      'real png': chelsea,
    };
    for (const [name, bytes] of Object.entries(files)) {
      const meta = await sharp(bytes).metadata();
      expect(readImageHeader(bytes), name).toEqual({ format: meta.format, width: meta.width, height: meta.height });
    }
  });

  it('answers undefined for other formats and for headers it cannot read, so sharp decides', async () => {
    const tiff = await sharp(chelsea).tiff().toBuffer();
    const avif = await sharp(chelsea).resize(32).avif().toBuffer();
    for (const bytes of [
      tiff,
      avif,
      Buffer.from('hello, not an image'),
      Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0xff, 0xd9]), // JPEG markers, no frame
      chelsea.subarray(0, 20), // PNG cut inside IHDR
      Buffer.from('GIF89a'),
      Buffer.alloc(0),
    ]) {
      expect(readImageHeader(bytes)).toBeUndefined();
    }
  });

  it('leaves a PNG with a damaged chunk, or cut inside its first data chunk, to sharp', async () => {
    const png = await sharp(chelsea).resize(40).png().toBuffer();
    const damaged = Buffer.from(png);
    damaged[45] ^= 0x5a; // inside the first IDAT: its CRC no longer matches
    expect(readImageHeader(damaged)).toBeUndefined();
    expect(readImageHeader(png.subarray(0, 50))).toBeUndefined();
  });

  it('leaves a JPEG to sharp when its EXIF block sits after the frame header (the decoder still turns it)', async () => {
    const jpeg = await jpegWithExifAfterFrameHeader();
    expect((await sharp(jpeg).metadata()).autoOrient).toEqual({ width: 600, height: 400 });
    expect(readImageHeader(jpeg)).toBeUndefined();
  });

  it('refuses a zero size', () => {
    const png = Buffer.from(chelsea);
    png.writeUInt32BE(0, 16);
    expect(readImageHeader(png)).toBeUndefined();
  });
});
