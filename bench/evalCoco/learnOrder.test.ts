import { describe, expect, it } from 'vitest';
import { shuffledOrder } from './learn';

describe('the learn eval photo order (--order-seed)', () => {
  const photos = Array.from({ length: 50 }, (_, i) => `photo-${i}.jpg`);

  it('keeps file-name order at seed 0', () => {
    expect(shuffledOrder(photos, 0)).toEqual(photos);
  });

  it('draws every photo once, the same order for the same seed and another for another seed', () => {
    const drawn = shuffledOrder(photos, 3);
    expect([...drawn].sort()).toEqual([...photos].sort());
    expect(drawn).not.toEqual(photos);
    expect(shuffledOrder(photos, 3)).toEqual(drawn);
    expect(shuffledOrder(photos, 4)).not.toEqual(drawn);
  });
});
