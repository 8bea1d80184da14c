import { describe, expect, it } from 'vitest';
import type { SamCells } from './descriptors';
import { RING_LENGTH, ringDescriptor } from './ringDescriptor';

/**
 * A 1024×1024 photo (one SAM cell per 16 pixels, the whole 64×64 grid on the photo) whose cells read
 * [1, 0] over an object filling cells 20–39 on both axes and [0, 1] elsewhere.
 */
function photoWithObject(): SamCells {
  const object = Float32Array.from([1, 0]);
  const background = Float32Array.from([0, 1]);
  return {
    channels: 2,
    width: 1024,
    height: 1024,
    cell: (index) => {
      const row = Math.floor(index / 64);
      const column = index % 64;
      return row >= 20 && row < 40 && column >= 20 && column < 40 ? object : background;
    },
  };
}

const pixels = (c0: number, c1: number) => ({ x0: c0 * 16, y0: c0 * 16, x1: c1 * 16, y1: c1 * 16 });

describe('ringDescriptor', () => {
  const cells = photoWithObject();
  const whole = ringDescriptor(cells, pixels(20, 40));
  const part = ringDescriptor(cells, pixels(25, 35));
  const withSurroundings = ringDescriptor(cells, pixels(14, 46));

  it('a whole object ends at its edge: nothing outside looks like it, its border is like its middle', () => {
    expect(whole).toHaveLength(RING_LENGTH);
    expect(whole[0]).toBeCloseTo(0, 6);
    expect(whole[1]).toBeCloseTo(0, 6);
    expect(whole[2]).toBeCloseTo(1, 6);
  });

  it('a part continues past its edge', () => {
    expect(part[0]).toBeCloseTo(1, 6);
    expect(part[1]).toBeCloseTo(1, 6);
    expect(part[0]).toBeGreaterThan(whole[0]);
  });

  it('the object with its surroundings has surroundings along its border, unlike its middle', () => {
    expect(withSurroundings[2]).toBeLessThan(0.6);
    expect(withSurroundings[2]).toBeLessThan(whole[2]);
    // Its border and its ring are both mostly background.
    expect(withSurroundings[1]).toBeGreaterThan(0.8);
  });

  it('the whole photo has no ring to compare with', () => {
    const wholePhoto = ringDescriptor(cells, pixels(0, 64));
    expect([wholePhoto[0], wholePhoto[1]]).toEqual([0, 0]);
  });
});
