/**
 * A minimal PNG encoder (8-bit grayscale, RGBA or palette, 16-bit grayscale, no filtering) and
 * decoder (8-bit, every colour type and filter, 16-bit grayscale; no interlacing) on the platform's zlib `CompressionStream` /
 * `DecompressionStream`, available in browsers and Node alike — so mask export and import are pure
 * modules, testable without a canvas.
 */

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

async function zlibDeflate(data: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([data as BlobPart]).stream().pipeThrough(new CompressionStream('deflate'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function zlibInflate(data: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([data as BlobPart]).stream().pipeThrough(new DecompressionStream('deflate'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/**
 * 'indexed': one byte per pixel into `palette` (RGB triples), e.g. Pascal VOC's masks. 'gray16': two
 * bytes per pixel, most significant first (PNG's order; see `gray16Bytes`), for masks of more than
 * 255 values.
 */
export type PngColor = 'gray' | 'rgba' | 'indexed' | 'gray16';

/** 16-bit samples as a 'gray16' PNG takes them (big-endian). */
export function gray16Bytes(values: ArrayLike<number>): Uint8Array {
  const bytes = new Uint8Array(values.length * 2);
  for (let i = 0; i < values.length; i++) {
    bytes[i * 2] = values[i] >> 8;
    bytes[i * 2 + 1] = values[i] & 0xff;
  }
  return bytes;
}

export async function encodePng(width: number, height: number, pixels: Uint8Array, color: PngColor, palette?: Uint8Array): Promise<Uint8Array> {
  const channels = color === 'rgba' ? 4 : color === 'gray16' ? 2 : 1;
  if (pixels.length !== width * height * channels) throw new Error(`expected ${width * height * channels} bytes, got ${pixels.length}`);
  const stride = width * channels;
  const raw = new Uint8Array((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (stride + 1)] = 0; // filter: none
    raw.set(pixels.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1);
  }
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header[8] = color === 'gray16' ? 16 : 8; // bit depth
  header[9] = color === 'gray' || color === 'gray16' ? 0 : color === 'rgba' ? 6 : 3;
  if (color === 'indexed' && !palette) throw new Error('an indexed PNG needs a palette');
  const paletteChunks = color === 'indexed' ? [chunk('PLTE', palette!)] : [];
  const parts = [SIGNATURE, chunk('IHDR', header), ...paletteChunks, chunk('IDAT', await zlibDeflate(raw)), chunk('IEND', new Uint8Array())];
  return concatBytes(parts);
}

const SIGNATURE = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]);

export interface DecodedPng {
  readonly width: number;
  readonly height: number;
  /** 1 gray, 2 gray + alpha, 3 RGB, 4 RGBA; an indexed PNG gives 1 channel of palette indices. */
  readonly channels: number;
  readonly pixels: Uint8Array;
  /** RGB triples, for an indexed PNG. */
  readonly palette?: Uint8Array;
  /** The samples of a 16-bit grayscale PNG (then `pixels` holds their high bytes). */
  readonly samples16?: Uint16Array;
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

export async function decodePng(bytes: Uint8Array): Promise<DecodedPng> {
  if (bytes.length < 8 || SIGNATURE.some((b, i) => bytes[i] !== b)) throw new Error('not a PNG file');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let width = 0;
  let height = 0;
  let colorType = -1;
  let depth = 8;
  let palette: Uint8Array | undefined;
  const idat: Uint8Array[] = [];
  for (let at = 8; at + 8 <= bytes.length; ) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    const data = bytes.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = view.getUint32(at + 8);
      height = view.getUint32(at + 12);
      depth = data[8];
      colorType = data[9];
      if (depth !== 8 && !(depth === 16 && colorType === 0)) throw new Error(`PNG bit depth ${depth} is not supported (8, or 16 for grayscale)`);
      if (data[12] !== 0) throw new Error('interlaced PNGs are not supported');
    } else if (type === 'PLTE') palette = data.slice();
    else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    at += 12 + length;
  }
  const channels = CHANNELS[colorType];
  if (!channels) throw new Error(`PNG colour type ${colorType} is not supported`);
  const raw = await zlibInflate(concatBytes(idat));
  // Filters work on bytes, a pixel apart: two bytes per sample at 16 bits.
  const pixelBytes = (channels * depth) / 8;
  const stride = width * pixelBytes;
  if (raw.length < (stride + 1) * height) throw new Error('PNG image data is truncated');
  const bytesOut = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const out = bytesOut.subarray(y * stride, (y + 1) * stride);
    const prior = y > 0 ? bytesOut.subarray((y - 1) * stride, y * stride) : new Uint8Array(stride);
    for (let i = 0; i < stride; i++) {
      const a = i >= pixelBytes ? out[i - pixelBytes] : 0;
      const b = prior[i];
      const c = i >= pixelBytes ? prior[i - pixelBytes] : 0;
      out[i] = (line[i] + unfilter(filter, a, b, c)) & 0xff;
    }
  }
  if (depth === 16) {
    const samples16 = new Uint16Array(width * height);
    const pixels = new Uint8Array(width * height);
    for (let i = 0; i < samples16.length; i++) {
      samples16[i] = (bytesOut[i * 2] << 8) | bytesOut[i * 2 + 1];
      pixels[i] = bytesOut[i * 2];
    }
    return { width, height, channels: 1, pixels, samples16 };
  }
  return { width, height, channels: colorType === 3 ? 1 : channels, pixels: bytesOut, palette };
}

function unfilter(filter: number, a: number, b: number, c: number): number {
  switch (filter) {
    case 0:
      return 0;
    case 1:
      return a;
    case 2:
      return b;
    case 3:
      return (a + b) >> 1;
    case 4: {
      const p = a + b - c;
      const pa = Math.abs(p - a);
      const pb = Math.abs(p - b);
      const pc = Math.abs(p - c);
      return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
    }
    default:
      throw new Error(`PNG filter ${filter} is not defined`);
  }
}

export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
