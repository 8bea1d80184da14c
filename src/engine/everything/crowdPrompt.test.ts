import { describe, expect, it } from 'vitest';
import { neighbourNegatives } from './crowdPrompt';

describe('neighbourNegatives', () => {
  const bottle = { x0: 100, y0: 50, x1: 130, y1: 120 };

  it('clicks away a neighbour whose centre the box also covers, at that centre', () => {
    // Boxes this close hold each other's centres; neither lies around the other.
    const beside = { x0: 110, y0: 55, x1: 140, y1: 125 };
    expect(neighbourNegatives(bottle, [beside])).toEqual([{ x: 125, y: 90, positive: false }]);
    // Its centre outside the box: the box does not cover it, nothing to click away.
    expect(neighbourNegatives(bottle, [{ x0: 128, y0: 55, x1: 160, y1: 125 }])).toEqual([]);
  });

  it('leaves alone a larger object the box lies on, and the box itself', () => {
    const table = { x0: 0, y0: 80, x1: 400, y1: 300 };
    const shelf = { x0: 90, y0: 40, x1: 140, y1: 130 };
    expect(neighbourNegatives(bottle, [table, shelf, { ...bottle }])).toEqual([]);
  });

  it('clicks away every neighbour inside a box that holds several objects', () => {
    const pair = { x0: 0, y0: 0, x1: 100, y1: 50 };
    const left = { x0: 2, y0: 2, x1: 40, y1: 48 };
    const right = { x0: 60, y0: 2, x1: 98, y1: 48 };
    expect(neighbourNegatives(pair, [left, right])).toEqual([
      { x: 21, y: 25, positive: false },
      { x: 79, y: 25, positive: false },
    ]);
  });
});
