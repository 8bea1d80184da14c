import { describe, expect, it } from 'vitest';
import type { BinaryMask } from '../types';
import { removeSmallRegions } from './regions';

function mask(rows: string[]): BinaryMask {
  const height = rows.length;
  const width = rows[0].length;
  return { width, height, data: Uint8Array.from(rows.join('').split(''), (c) => (c === '#' ? 1 : 0)) };
}
const text = (m: BinaryMask) => Array.from({ length: m.height }, (_, y) => Array.from(m.data.subarray(y * m.width, (y + 1) * m.width), (v) => (v ? '#' : '.')).join(''));

describe('removeSmallRegions', () => {
  it('fills holes and removes islands smaller than the area, keeps larger ones', () => {
    const before = mask([
      '#......',
      '.......',
      '.#####.',
      '.#.#..#',
      '.#####.',
      '.......',
    ]);
    // Holes first, as SAM: the 1-pixel hole is filled, the 2-pixel one stays; then the two 1-pixel islands go.
    expect(text(removeSmallRegions(before, 2))).toEqual([
      '.......',
      '.......',
      '.#####.',
      '.###...',
      '.#####.',
      '.......',
    ]);
  });

  it('keeps the only island of a small object, and returns the same mask when nothing changes', () => {
    const tiny = mask(['....', '.#..', '....']);
    expect(removeSmallRegions(tiny, 100)).toBe(tiny);
    expect(removeSmallRegions(tiny, 0)).toBe(tiny);
  });

  it('does not fill background that reaches the border', () => {
    const cup = mask(['#.#', '#.#', '###']);
    expect(removeSmallRegions(cup, 10)).toBe(cup);
  });
});
