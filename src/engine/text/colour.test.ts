import { describe, expect, it } from 'vitest';
import type { BinaryMask, RgbaImage } from '../types';
import { maskColourHistogram, maskHasColour, nameColour, rgbToHsv } from './colour';

function solid(width: number, height: number, fill: (x: number, y: number) => [number, number, number]): RgbaImage {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const [r, g, b] = fill(x, y);
      data.set([r, g, b, 255], (y * width + x) * 4);
    }
  }
  return { width, height, data };
}

function fullMask(width: number, height: number, inside: (x: number, y: number) => boolean = () => true): BinaryMask {
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data[y * width + x] = inside(x, y) ? 1 : 0;
  return { width, height, data };
}

describe('colour names', () => {
  it('converts RGB to HSV', () => {
    expect(rgbToHsv(255, 0, 0)).toEqual([0, 1, 1]);
    expect(rgbToHsv(0, 255, 0)[0]).toBeCloseTo(120);
    expect(rgbToHsv(0, 0, 255)[0]).toBeCloseTo(240);
    expect(rgbToHsv(128, 128, 128)[1]).toBe(0);
  });

  it.each([
    [[220, 30, 30], 'red'], [[250, 140, 20], 'orange'], [[240, 220, 40], 'yellow'], [[40, 160, 60], 'green'],
    [[30, 60, 200], 'blue'], [[130, 40, 180], 'purple'], [[250, 150, 190], 'pink'], [[120, 70, 30], 'brown'],
    [[10, 10, 10], 'black'], [[250, 250, 250], 'white'], [[128, 128, 128], 'gray'], [[0, 0, 128], 'blue'],
    [[255, 192, 203], 'pink'], [[139, 69, 19], 'brown'], [[255, 255, 0], 'yellow'], [[0, 128, 128], 'blue'],
  ] as [[number, number, number], string][])('%j is %s', (rgb, name) => {
    expect(nameColour(...rgb)).toBe(name);
  });
});

describe('mask colour', () => {
  it('judges only the masked pixels', () => {
    // Left half red, right half blue; the mask covers the left half.
    const image = solid(40, 20, (x) => (x < 20 ? [210, 20, 30] : [20, 40, 210]));
    const left = maskColourHistogram(image, fullMask(40, 20, (x) => x < 20));
    expect(left.red).toBe(1);
    expect(maskHasColour(left, 'red')).toBe(true);
    expect(maskHasColour(left, 'blue')).toBe(false);
  });

  it('accepts a red object with dark tyres and grey windows (most chromatic pixels are red)', () => {
    const image = solid(100, 10, (x) => (x < 45 ? [200, 25, 25] : x < 75 ? [20, 20, 20] : [140, 140, 145]));
    const histogram = maskColourHistogram(image, fullMask(100, 10));
    expect(maskHasColour(histogram, 'red')).toBe(true);
    expect(maskHasColour(histogram, 'green')).toBe(false);
    // Black covers 30%: not enough to call the object black.
    expect(maskHasColour(histogram, 'black')).toBe(false);
  });

  it('an empty mask has no colour', () => {
    const image = solid(4, 4, () => [200, 0, 0]);
    const histogram = maskColourHistogram(image, fullMask(4, 4, () => false));
    expect(maskHasColour(histogram, 'red')).toBe(false);
  });
});

describe('neighbouring colour names', () => {
  it('calls a ginger coat both orange and brown, but not blue or red-dominated', () => {
    const histogram = { red: 0.03, orange: 0.26, yellow: 0, green: 0, blue: 0, purple: 0, pink: 0, brown: 0.69, black: 0.02, white: 0, gray: 0 };
    expect(maskHasColour(histogram, 'orange')).toBe(true);
    expect(maskHasColour(histogram, 'brown')).toBe(true);
    expect(maskHasColour(histogram, 'blue')).toBe(false);
    expect(maskHasColour(histogram, 'red')).toBe(false);
    // Purple is not a neighbour of green, so a purple-dominated object is not green.
    const mixed = { ...histogram, orange: 0, brown: 0, green: 0.25, purple: 0.5 };
    expect(maskHasColour(mixed, 'green')).toBe(false);
  });
});
