import { describe, expect, it } from 'vitest';
import { maskPixels } from './maskPixels';

describe('maskPixels', () => {
  it('paints the inside in the colour and leaves the outside transparent', () => {
    const pixels = maskPixels({ width: 2, height: 2, data: new Uint8Array([1, 0, 0, 1]) }, [56, 189, 248, 97]);
    expect(Array.from(pixels)).toEqual([56, 189, 248, 97, 0, 0, 0, 0, 0, 0, 0, 0, 56, 189, 248, 97]);
  });
});
