/**
 * Colour words checked against pixels: each pixel of a mask is named with one of eleven basic
 * colour terms (Berlin & Kay's set) from its HSV value, and a mask "is red" when red is the most
 * frequent chromatic name among its pixels and covers a fair share of them.
 *
 * Per-pixel naming, not the mean colour: a red car with black tyres and grey windows averages to
 * a muddy brown, while most of its body pixels are still red.
 */
import type { BinaryMask, RgbaImage } from '../types';

export const COLOUR_NAMES = ['red', 'orange', 'yellow', 'green', 'blue', 'purple', 'pink', 'brown', 'black', 'white', 'gray'] as const;
export type ColourName = (typeof COLOUR_NAMES)[number];
const ACHROMATIC: ReadonlySet<ColourName> = new Set(['black', 'white', 'gray']);

/** HSV with hue in degrees [0, 360), saturation and value in [0, 1]. */
export function rgbToHsv(r: number, g: number, b: number): [number, number, number] {
  const rn = r / 255;
  const gn = g / 255;
  const bn = b / 255;
  const max = Math.max(rn, gn, bn);
  const min = Math.min(rn, gn, bn);
  const delta = max - min;
  let h = 0;
  if (delta > 0) {
    if (max === rn) h = 60 * (((gn - bn) / delta) % 6);
    else if (max === gn) h = 60 * ((bn - rn) / delta + 2);
    else h = 60 * ((rn - gn) / delta + 4);
  }
  if (h < 0) h += 360;
  return [h, max === 0 ? 0 : delta / max, max];
}

export function nameColour(r: number, g: number, b: number): ColourName {
  const [h, s, v] = rgbToHsv(r, g, b);
  if (v < 0.18) return 'black';
  if (s < 0.18 || (s < 0.3 && v < 0.35)) return v > 0.82 ? 'white' : v < 0.3 ? 'black' : 'gray';
  if (h < 15 || h >= 340) {
    if (v < 0.45) return 'brown';
    return s < 0.5 && v > 0.7 ? 'pink' : 'red';
  }
  if (h < 42) return v < 0.62 || (s < 0.35 && v < 0.8) ? 'brown' : 'orange';
  if (h < 70) return v < 0.45 ? 'brown' : 'yellow';
  if (h < 165) return 'green';
  if (h < 260) return 'blue';
  if (h < 290) return 'purple';
  return 'pink';
}

export type ColourHistogram = Record<ColourName, number>;

/** Share of the mask's pixels carrying each colour name (sums to 1 for a non-empty mask). */
export function maskColourHistogram(image: RgbaImage, mask: BinaryMask): ColourHistogram {
  const counts = Object.fromEntries(COLOUR_NAMES.map((c) => [c, 0])) as ColourHistogram;
  let total = 0;
  // Sampling every pixel of a large mask is wasteful; a stride keeps the cost bounded.
  const pixels = mask.width * mask.height;
  const stride = Math.max(1, Math.floor(pixels / 200_000));
  for (let i = 0; i < pixels; i += stride) {
    if (!mask.data[i]) continue;
    const o = i * 4;
    counts[nameColour(image.data[o], image.data[o + 1], image.data[o + 2])]++;
    total++;
  }
  if (total > 0) for (const c of COLOUR_NAMES) counts[c] /= total;
  return counts;
}

/** Colour names that shade into each other (a ginger cat is called orange and brown). */
const NEIGHBOURS: Readonly<Record<ColourName, readonly ColourName[]>> = {
  red: ['orange', 'pink', 'brown'],
  orange: ['red', 'yellow', 'brown'],
  yellow: ['orange', 'green'],
  green: ['yellow', 'blue'],
  blue: ['green', 'purple'],
  purple: ['blue', 'pink'],
  pink: ['red', 'purple'],
  brown: ['orange', 'red'],
  black: [],
  white: [],
  gray: [],
};

/**
 * Does the masked object have this colour? A chromatic colour must name at least 20% of the
 * pixels, and no chromatic colour other than its neighbours may name more. Black/white/gray must
 * name at least 40% (shadows and highlights are achromatic on objects of every colour, so they
 * need a larger share).
 */
export function maskHasColour(histogram: ColourHistogram, colour: ColourName): boolean {
  const share = histogram[colour];
  if (ACHROMATIC.has(colour)) return share >= 0.4;
  if (share < 0.2) return false;
  return COLOUR_NAMES.every(
    (other) => other === colour || ACHROMATIC.has(other) || NEIGHBOURS[colour].includes(other) || histogram[other] <= share,
  );
}
