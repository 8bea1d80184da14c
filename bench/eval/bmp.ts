/**
 * A minimal reader for uncompressed Windows BMP files (sharp/libvips cannot read BMP).
 *
 * GrabCut ships its masks as 8-bit palettized BMPs (grayscale palette) and 11 of its photos as
 * 24-bit BMPs, so those are the cases that matter; 32-bit BI_RGB is accepted as well. Anything
 * else (RLE, bitfields, 1/4-bit) is rejected with a clear message instead of being misread.
 */

export interface BmpImage {
  readonly width: number;
  readonly height: number;
  /** RGBA, row-major, top row first (BMP stores rows bottom-up unless the height is negative). */
  readonly rgba: Uint8Array;
  /** For palettized files: the palette index of every pixel, row-major, top row first. */
  readonly indices?: Uint8Array;
}

const BI_RGB = 0;

export function decodeBmp(bytes: Uint8Array): BmpImage {
  if (bytes.length < 54 || bytes[0] !== 0x42 || bytes[1] !== 0x4d) {
    throw new Error('not a BMP file (missing "BM" signature)');
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const pixelOffset = view.getUint32(10, true);
  const headerSize = view.getUint32(14, true);
  if (headerSize < 40) throw new Error(`unsupported BMP header size ${headerSize} (OS/2 BMP?)`);
  const width = view.getInt32(18, true);
  const rawHeight = view.getInt32(22, true);
  const bitsPerPixel = view.getUint16(28, true);
  const compression = view.getUint32(30, true);
  const paletteSize = view.getUint32(46, true);
  if (width <= 0 || rawHeight === 0) throw new Error(`invalid BMP dimensions ${width}x${rawHeight}`);
  if (compression !== BI_RGB) throw new Error(`unsupported BMP compression ${compression} (only uncompressed)`);
  if (bitsPerPixel !== 8 && bitsPerPixel !== 24 && bitsPerPixel !== 32) {
    throw new Error(`unsupported BMP bit depth ${bitsPerPixel} (8, 24 or 32 expected)`);
  }
  const topDown = rawHeight < 0;
  const height = Math.abs(rawHeight);
  // Rows are padded to a multiple of 4 bytes.
  const stride = Math.ceil((width * bitsPerPixel) / 32) * 4;
  if (pixelOffset + stride * height > bytes.length) throw new Error('truncated BMP pixel data');

  const rgba = new Uint8Array(width * height * 4);
  let indices: Uint8Array | undefined;
  if (bitsPerPixel === 8) {
    const paletteStart = 14 + headerSize;
    const colors = paletteSize === 0 ? 256 : paletteSize;
    if (paletteStart + colors * 4 > pixelOffset) throw new Error('BMP palette overlaps pixel data');
    indices = new Uint8Array(width * height);
    for (let y = 0; y < height; y++) {
      const src = pixelOffset + (topDown ? y : height - 1 - y) * stride;
      for (let x = 0; x < width; x++) {
        const index = bytes[src + x];
        if (index >= colors) throw new Error(`BMP palette index ${index} out of range (${colors} colors)`);
        const entry = paletteStart + index * 4; // palette entries are B, G, R, reserved
        const out = (y * width + x) * 4;
        indices[y * width + x] = index;
        rgba[out] = bytes[entry + 2];
        rgba[out + 1] = bytes[entry + 1];
        rgba[out + 2] = bytes[entry];
        rgba[out + 3] = 255;
      }
    }
  } else {
    const bytesPerPixel = bitsPerPixel / 8;
    for (let y = 0; y < height; y++) {
      const src = pixelOffset + (topDown ? y : height - 1 - y) * stride;
      for (let x = 0; x < width; x++) {
        const p = src + x * bytesPerPixel; // pixels are B, G, R(, unused)
        const out = (y * width + x) * 4;
        rgba[out] = bytes[p + 2];
        rgba[out + 1] = bytes[p + 1];
        rgba[out + 2] = bytes[p];
        rgba[out + 3] = 255;
      }
    }
  }
  return { width, height, rgba, indices };
}

/** Encodes an 8-bit grayscale-palette BMP, bottom-up as most writers do. Used by tests. */
export function encodeGrayBmp(width: number, height: number, values: Uint8Array): Uint8Array {
  const stride = Math.ceil(width / 4) * 4;
  const pixelOffset = 14 + 40 + 256 * 4;
  const bytes = new Uint8Array(pixelOffset + stride * height);
  const view = new DataView(bytes.buffer);
  bytes[0] = 0x42;
  bytes[1] = 0x4d;
  view.setUint32(2, bytes.length, true);
  view.setUint32(10, pixelOffset, true);
  view.setUint32(14, 40, true);
  view.setInt32(18, width, true);
  view.setInt32(22, height, true);
  view.setUint16(26, 1, true);
  view.setUint16(28, 8, true);
  view.setUint32(30, BI_RGB, true);
  view.setUint32(34, stride * height, true);
  view.setUint32(46, 256, true);
  for (let i = 0; i < 256; i++) bytes.fill(i, 54 + i * 4, 54 + i * 4 + 3);
  for (let y = 0; y < height; y++) {
    bytes.set(values.subarray(y * width, (y + 1) * width), pixelOffset + (height - 1 - y) * stride);
  }
  return bytes;
}
