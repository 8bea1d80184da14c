/**
 * The learned model's examples in their stored form: every vector as IEEE 754 half-precision numbers
 * (binary16, round to nearest even), row after row, little-endian, in one Base64 string. A number in
 * JSON costs ~19 characters; a half costs 2.7, so a model at full capacity stays well under the
 * server's body limit, and writing it is one string copy rather than a million numbers formatted.
 *
 * Half precision keeps 11 significant bits (relative error ≤ 2⁻¹¹): a descriptor's parts are unit
 * vectors, scores in [0, 1] and a few small statistics, far coarser than that. The model rounds an
 * example when it takes it (`halvesOf`), so the stored form holds exactly what it learned from and
 * a restored model goes on learning as the original would.
 */

export interface PackedExamples {
  /** Numbers per example. */
  readonly features: number;
  /** Each example's class index (0: background), in order. */
  readonly classes: readonly number[];
  /** `classes.length × features` halves, Base64. */
  readonly float16: string;
  /** Each example's key (what it was taught from; '' for none), absent when none has one. */
  readonly keys?: readonly string[];
}

/** The largest finite half: larger values are stored as it rather than as infinity. */
export const MAX_HALF = 65504;

const single = new Float32Array(1);
const singleBits = new Uint32Array(single.buffer);

/** The binary16 bit pattern nearest `value` (ties to even); out of range → ±MAX_HALF, NaN → NaN. */
export function halfBits(value: number): number {
  if (Number.isNaN(value)) return 0x7e00;
  single[0] = Math.max(-MAX_HALF, Math.min(MAX_HALF, value));
  const bits = singleBits[0];
  const sign = (bits >>> 16) & 0x8000;
  const exponent = ((bits >>> 23) & 0xff) - 127 + 15;
  let mantissa = bits & 0x7fffff;
  if (exponent <= 0) {
    // A subnormal half (or zero): the implicit bit joins the mantissa, shifted to 2⁻²⁴ units.
    if (exponent < -10) return sign;
    mantissa |= 0x800000;
    const shift = 14 - exponent;
    return sign | roundedShift(mantissa, shift);
  }
  // A carry out of the mantissa moves into the exponent, which is the right rounding.
  return sign | ((exponent << 10) + roundedShift(mantissa, 13));
}

function roundedShift(value: number, shift: number): number {
  const kept = value >>> shift;
  const rest = value & ((1 << shift) - 1);
  const half = 1 << (shift - 1);
  return rest > half || (rest === half && (kept & 1) === 1) ? kept + 1 : kept;
}

let halves: Float64Array | undefined;

/** Every half's value, by bit pattern (built once: decoding is then a lookup). */
function halfTable(): Float64Array {
  if (halves) return halves;
  halves = new Float64Array(0x10000);
  for (let bits = 0; bits < 0x10000; bits++) {
    const sign = bits & 0x8000 ? -1 : 1;
    const exponent = (bits >>> 10) & 0x1f;
    const mantissa = bits & 0x3ff;
    halves[bits] = exponent === 0 ? sign * mantissa * 2 ** -24 : exponent === 0x1f ? (mantissa ? Number.NaN : sign * Infinity) : sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
  }
  return halves;
}

export const halfValue = (bits: number): number => halfTable()[bits & 0xffff];

/** `value` as the model keeps it: the nearest half. */
export const roundToHalf = (value: number): number => halfValue(halfBits(value));

/** A vector as halves (what the model keeps of an example, and writes as it is). */
export function halvesOf(values: ArrayLike<number>): Uint16Array {
  const halves = new Uint16Array(values.length);
  for (let j = 0; j < values.length; j++) halves[j] = halfBits(values[j]);
  return halves;
}

export function valuesOf(halves: Uint16Array): Float64Array {
  const table = halfTable();
  const values = new Float64Array(halves.length);
  for (let j = 0; j < halves.length; j++) values[j] = table[halves[j]];
  return values;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The examples in their stored form; every one must hold `features` halves. */
export function packExamples(examples: readonly { readonly halves: Uint16Array; readonly c: number; readonly key?: string }[], features: number): PackedExamples {
  const bytes = new Uint8Array(examples.length * features * 2);
  examples.forEach((e, i) => {
    if (e.halves.length !== features) throw new Error(`an example has ${e.halves.length} numbers, not ${features}`);
    const at = i * features * 2;
    if (LITTLE_ENDIAN) bytes.set(new Uint8Array(e.halves.buffer, e.halves.byteOffset, e.halves.byteLength), at);
    else e.halves.forEach((bits, j) => bytes.set([bits & 0xff, bits >>> 8], at + 2 * j));
  });
  const keyed = examples.some((e) => e.key !== undefined);
  return { features, classes: examples.map((e) => e.c), float16: toBase64(bytes), ...(keyed ? { keys: examples.map((e) => e.key ?? '') } : {}) };
}

export function unpackExamples(packed: PackedExamples): { halves: Uint16Array; x: Float64Array; c: number; key?: string }[] {
  const bytes = fromBase64(packed.float16);
  if (bytes.length !== packed.classes.length * packed.features * 2) throw new Error(`the packed examples hold ${bytes.length} bytes, not ${packed.classes.length} × ${packed.features} halves`);
  return packed.classes.map((c, i) => {
    const halves = new Uint16Array(packed.features);
    const base = i * packed.features * 2;
    for (let j = 0; j < packed.features; j++) halves[j] = bytes[base + 2 * j] | (bytes[base + 2 * j + 1] << 8);
    const key = packed.keys?.[i];
    return { halves, x: valuesOf(halves), c, ...(key ? { key } : {}) };
  });
}

/** Bytes a Base64 string of `length` characters (padded) decodes to. */
export function base64Bytes(text: string): number {
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  return (text.length / 4) * 3 - padding;
}

// A table-driven Base64 (RFC 4648, padded): btoa and atob want a string of one character per byte,
// which costs more to build than the encoding itself on a model of millions of bytes.
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const CODES = Uint8Array.from(ALPHABET, (ch) => ch.charCodeAt(0));
const VALUES = new Uint8Array(128).fill(255);
CODES.forEach((code, value) => (VALUES[code] = value));
const PAD = '='.charCodeAt(0);

function toBase64(bytes: Uint8Array): string {
  const out = new Uint8Array(Math.ceil(bytes.length / 3) * 4);
  let o = 0;
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out[o++] = CODES[n >>> 18];
    out[o++] = CODES[(n >>> 12) & 63];
    out[o++] = CODES[(n >>> 6) & 63];
    out[o++] = CODES[n & 63];
  }
  if (i < bytes.length) {
    const n = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8);
    out[o++] = CODES[n >>> 18];
    out[o++] = CODES[(n >>> 12) & 63];
    out[o++] = i + 1 < bytes.length ? CODES[(n >>> 6) & 63] : PAD;
    out[o++] = PAD;
  }
  return new TextDecoder('latin1').decode(out);
}

function fromBase64(text: string): Uint8Array {
  const bytes = new Uint8Array(base64Bytes(text));
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    const n = (value(text, i) << 18) | (value(text, i + 1) << 12) | (value(text, i + 2) << 6) | value(text, i + 3);
    if (o < bytes.length) bytes[o++] = n >>> 16;
    if (o < bytes.length) bytes[o++] = (n >>> 8) & 0xff;
    if (o < bytes.length) bytes[o++] = n & 0xff;
  }
  return bytes;
}

/** A Base64 character's value; padding counts as 0. */
function value(text: string, i: number): number {
  const code = text.charCodeAt(i);
  if (code === PAD) return 0;
  const v = code < 128 ? VALUES[code] : 255;
  if (v === 255) throw new Error(`not Base64 at character ${i}`);
  return v;
}
