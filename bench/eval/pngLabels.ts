/**
 * Reads the per-pixel labels of a DAVIS ground-truth PNG.
 *
 * DAVIS annotations are palette PNGs; the object is every pixel whose palette INDEX is non-zero.
 * pngjs always expands palettes to RGBA (and two indices may share a colour), so palette images
 * are decoded here directly: chunks → zlib inflate → unfilter → indices. Other colour types fall
 * back to pngjs, with "non-zero" meaning any non-zero colour channel (what RITM's loader does).
 */
import { inflateSync } from 'node:zlib';
import { PNG } from 'pngjs';

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const COLOR_TYPE_PALETTE = 3;

export interface LabelImage {
  readonly width: number;
  readonly height: number;
  /** One value per pixel: the palette index, or for non-palette PNGs 1 where any channel is non-zero. */
  readonly labels: Uint8Array;
}

export function readPngLabels(bytes: Uint8Array): LabelImage {
  if (bytes.length < 8 || SIGNATURE.some((b, i) => bytes[i] !== b)) throw new Error('not a PNG file');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 8;
  let width = 0;
  let height = 0;
  let bitDepth = 0;
  let colorType = -1;
  let interlace = 0;
  const idat: Uint8Array[] = [];
  while (offset + 8 <= bytes.length) {
    const length = view.getUint32(offset);
    const type = String.fromCharCode(...bytes.subarray(offset + 4, offset + 8));
    const data = bytes.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = view.getUint32(offset + 8);
      height = view.getUint32(offset + 12);
      bitDepth = data[8];
      colorType = data[9];
      interlace = data[12];
    } else if (type === 'IDAT') {
      idat.push(data);
    } else if (type === 'IEND') {
      break;
    }
    offset += 12 + length;
  }
  if (colorType !== COLOR_TYPE_PALETTE) return labelsFromColors(bytes);
  if (interlace !== 0) throw new Error('interlaced palette PNGs are not supported');
  if (![1, 2, 4, 8].includes(bitDepth)) throw new Error(`invalid palette PNG bit depth ${bitDepth}`);

  const raw = inflateSync(Buffer.concat(idat));
  const stride = Math.ceil((width * bitDepth) / 8);
  if (raw.length < (stride + 1) * height) throw new Error('truncated PNG image data');
  const rows = unfilter(raw, stride, height, Math.max(1, bitDepth / 8));
  const labels = new Uint8Array(width * height);
  const perByte = 8 / bitDepth;
  const valueMask = (1 << bitDepth) - 1;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const byte = rows[y * stride + Math.floor(x / perByte)];
      const shift = 8 - bitDepth * ((x % perByte) + 1);
      labels[y * width + x] = (byte >> shift) & valueMask;
    }
  }
  return { width, height, labels };
}

/** Reverses PNG's per-row filters (none, sub, up, average, Paeth); returns the bare rows. */
function unfilter(raw: Uint8Array, stride: number, height: number, bytesPerPixel: number): Uint8Array {
  const out = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const src = y * (stride + 1) + 1;
    const row = y * stride;
    const prev = row - stride;
    for (let i = 0; i < stride; i++) {
      const left = i >= bytesPerPixel ? out[row + i - bytesPerPixel] : 0;
      const up = y > 0 ? out[prev + i] : 0;
      const upLeft = y > 0 && i >= bytesPerPixel ? out[prev + i - bytesPerPixel] : 0;
      let predictor: number;
      switch (filter) {
        case 0: predictor = 0; break;
        case 1: predictor = left; break;
        case 2: predictor = up; break;
        case 3: predictor = (left + up) >> 1; break;
        case 4: predictor = paeth(left, up, upLeft); break;
        default: throw new Error(`invalid PNG filter type ${filter}`);
      }
      out[row + i] = (raw[src + i] + predictor) & 0xff;
    }
  }
  return out;
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

function labelsFromColors(bytes: Uint8Array): LabelImage {
  const png = PNG.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  const labels = new Uint8Array(png.width * png.height);
  for (let i = 0; i < labels.length; i++) {
    const p = i * 4;
    labels[i] = png.data[p] | png.data[p + 1] | png.data[p + 2] ? 1 : 0;
  }
  return { width: png.width, height: png.height, labels };
}
