import { describe, expect, it } from 'vitest';
import { base64Bytes, halfBits, halfValue, halvesOf, MAX_HALF, packExamples, roundToHalf, unpackExamples } from './packedExamples';

describe('half precision', () => {
  it('gives the IEEE 754 binary16 patterns, ties to even, clamping what is out of range', () => {
    expect(halfBits(1)).toBe(0x3c00);
    expect(halfBits(-2)).toBe(0xc000);
    expect(halfBits(0.1)).toBe(0x2e66);
    expect(halfBits(MAX_HALF)).toBe(0x7bff);
    expect(halfBits(1e9)).toBe(0x7bff);
    expect(halfBits(-1e9)).toBe(0xfbff);
    expect(halfBits(2 ** -24)).toBe(0x0001);
    expect(halfBits(2 ** -26)).toBe(0x0000);
    expect(halfBits(-0)).toBe(0x8000);
    // 1 + 2⁻¹¹ is half way between 1 and the next half: to the even one (1); 1 + 3·2⁻¹¹ rounds up to the even 1 + 2⁻⁹.
    expect(halfBits(1 + 2 ** -11)).toBe(0x3c00);
    expect(halfBits(1 + 3 * 2 ** -11)).toBe(0x3c02);
    // Rounding up out of the mantissa carries into the exponent.
    expect(halfBits(2 - 2 ** -12)).toBe(0x4000);
    expect(Number.isNaN(halfValue(halfBits(Number.NaN)))).toBe(true);
  });

  it('reads back every finite half exactly, and rounds any number to within 2⁻¹¹ of itself', () => {
    for (let bits = 0; bits < 0x7c00; bits += 7) expect(halfBits(halfValue(bits))).toBe(bits);
    for (const x of [0.123456, -3.14159, 0.7071, 1234.5678, 6e-5, -0.98765]) {
      expect(Math.abs(roundToHalf(x) - x)).toBeLessThanOrEqual(Math.max(Math.abs(x) * 2 ** -11, 2 ** -25));
    }
  });
});

describe('packed examples', () => {
  it('round-trips rounded vectors exactly, with their classes and keys', () => {
    const vectors = [
      [0.5, -0.25, 0.3],
      [1 / 3, 7, -1e-3],
    ];
    const examples = vectors.map((x, i) => ({ halves: halvesOf(x), c: 2 * i, ...(i ? { key: 'object-7' } : {}) }));
    const packed = packExamples(examples, 3);
    expect(base64Bytes(packed.float16)).toBe(2 * 3 * 2);
    const unpacked = unpackExamples(JSON.parse(JSON.stringify(packed)));
    expect(unpacked.map((e) => ({ x: [...e.x], c: e.c, key: e.key }))).toEqual(vectors.map((x, i) => ({ x: x.map(roundToHalf), c: 2 * i, key: i ? 'object-7' : undefined })));
  });

  it('encodes Base64 as the standard does, for every remainder of three bytes', () => {
    for (const length of [1, 2, 3, 4, 5, 6, 7]) {
      const halves = Uint16Array.from({ length }, (_, i) => (i * 40503 + 977) & 0xffff);
      const packed = packExamples([{ halves, c: 0 }], length);
      expect(packed.float16).toBe(Buffer.from(halves.buffer).toString('base64'));
      expect([...unpackExamples(packed)[0].halves]).toEqual([...halves]);
    }
  });

  it('packs many examples in one string', () => {
    const examples = Array.from({ length: 100 }, (_, i) => ({ halves: halvesOf(Array.from({ length: 377 }, (_, j) => Math.sin(i * 377 + j))), c: i % 3 }));
    const unpacked = unpackExamples(packExamples(examples, 377));
    expect(unpacked.map((e) => [...e.halves])).toEqual(examples.map((e) => [...e.halves]));
  });

  it('refuses vectors of another length, and a string that does not hold the examples', () => {
    expect(() => packExamples([{ halves: halvesOf([1, 2]), c: 0 }], 3)).toThrow(/2 numbers, not 3/);
    const packed = packExamples([{ halves: halvesOf([1, 2, 3]), c: 0 }], 3);
    expect(() => unpackExamples({ ...packed, classes: [0, 0] })).toThrow(/not 2 × 3/);
    expect(() => unpackExamples({ ...packed, float16: `${packed.float16.slice(0, 4)}$${packed.float16.slice(5)}` })).toThrow(/not Base64/);
  });
});
