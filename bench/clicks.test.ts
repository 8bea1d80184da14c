import { describe, expect, it } from 'vitest';
import { gridClicks } from './clicks';

describe('gridClicks', () => {
  it('gives exactly the requested number of distinct clicks inside the image', () => {
    for (const [w, h, n] of [[600, 400, 20], [451, 300, 7], [512, 512, 1], [4000, 300, 20]] as const) {
      const clicks = gridClicks(w, h, n);
      expect(clicks).toHaveLength(n);
      expect(new Set(clicks.map((c) => `${c.x},${c.y}`)).size).toBe(n);
      for (const c of clicks) {
        expect(c.x).toBeGreaterThanOrEqual(0);
        expect(c.x).toBeLessThan(w);
        expect(c.y).toBeGreaterThanOrEqual(0);
        expect(c.y).toBeLessThan(h);
      }
    }
  });
});
