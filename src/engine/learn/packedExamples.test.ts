import { describe, expect, it } from 'vitest';
import { base64Bytes, halfBits, halfValue, MAX_HALF, packExamples, roundToHalf, unpackExamples } from './packedExamples';

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
  it('round-trips rounded vectors exactly, with their classes', () => {
    const examples = [
      { x: [0.5, -0.25, roundToHalf(0.3)], c: 0 },
      { x: [roundToHalf(1 / 3), 7, -1e-3].map(roundToHalf), c: 2 },
    ];
    const packed = packExamples(examples, 3);
    expect(base64Bytes(packed.float16)).toBe(2 * 3 * 2);
    expect(unpackExamples(JSON.parse(JSON.stringify(packed))).map((e) => ({ x: [...e.x], c: e.c }))).toEqual(examples);
  });

  it('packs past the Base64 chunk size without padding in the middle', () => {
    const examples = Array.from({ length: 100 }, (_, i) => ({ x: Array.from({ length: 377 }, (_, j) => roundToHalf(Math.sin(i * 377 + j))), c: i % 3 }));
    const unpacked = unpackExamples(packExamples(examples, 377));
    expect(unpacked[99].x[376]).toBe(examples[99].x[376]);
    expect(unpacked.map((e) => [...e.x])).toEqual(examples.map((e) => e.x));
  });

  it('refuses vectors of another length, and a string that does not hold the examples', () => {
    expect(() => packExamples([{ x: [1, 2], c: 0 }], 3)).toThrow(/2 numbers, not 3/);
    const packed = packExamples([{ x: [1, 2, 3], c: 0 }], 3);
    expect(() => unpackExamples({ ...packed, classes: [0, 0] })).toThrow(/not 2 × 3/);
  });
});
