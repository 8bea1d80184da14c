/**
 * Byte-level image fixtures for the bad-input suites, built here rather than stored:
 * tiny valid images, truncated/corrupt files and a decompression bomb.
 */
import { deflateSync, crc32 } from 'node:zlib';

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData) >>> 0);
  return Buffer.concat([length, typeAndData, crc]);
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A PNG with the given size; colour type 2 (RGB, 8 bit) or 0 with bit depth 1 for the bomb. */
function png(width: number, height: number, bitDepth: 1 | 8, colourType: 0 | 2, pixel: (x: number, y: number) => number[]): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = bitDepth;
  header[9] = colourType;
  const channels = colourType === 2 ? 3 : 1;
  const rowBytes = Math.ceil((width * channels * bitDepth) / 8);
  const raw = Buffer.alloc((rowBytes + 1) * height);
  if (bitDepth === 8) {
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const values = pixel(x, y);
        for (let c = 0; c < channels; c++) raw[y * (rowBytes + 1) + 1 + x * channels + c] = values[c];
      }
    }
  }
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A small, valid RGB image: a bright disc on a dark background, so a click on it has an object to find. */
export function tinyPng(size = 32): Buffer {
  const centre = size / 2;
  return png(size, size, 8, 2, (x, y) => {
    const inside = (x - centre) ** 2 + (y - centre) ** 2 < (size / 4) ** 2;
    return inside ? [240, 200, 40] : [20, 30, 60];
  });
}

/**
 * ~100 KB on the wire, 30000 x 30000 pixels when decoded (900 M pixels): a server that decodes before
 * checking dimensions spends seconds and gigabytes on it.
 */
export function decompressionBombPng(side = 30_000): Buffer {
  return png(side, side, 1, 0, () => [0]);
}

/** Valid signature and header, then the data stops half-way. */
export function truncatedPng(): Buffer {
  const whole = tinyPng(64);
  return whole.subarray(0, Math.floor(whole.length / 2));
}

/** A real PNG whose IDAT bytes are scrambled (CRC left wrong). */
export function corruptPng(): Buffer {
  const bytes = Buffer.from(tinyPng(64));
  for (let i = 40; i < bytes.length - 16; i += 7) bytes[i] ^= 0x5a;
  return bytes;
}

export const NOT_IMAGES: Record<string, Buffer> = {
  text: Buffer.from('hello, this is not an image at all'),
  json: Buffer.from('{"image":"nested"}'),
  pdfHeader: Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n', 'latin1'),
  gifHeaderOnly: Buffer.from('GIF89a'),
  jpegMarkersOnly: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0xff, 0xd9]),
  svgExternal: Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10">' +
      '<image xlink:href="http://127.0.0.1:9/x.png" width="10" height="10"/></svg>',
  ),
  empty: Buffer.alloc(0),
  zeros: Buffer.alloc(512),
};
