import { describe, expect, it } from 'vitest';
import { withoutDuplicates } from './objectDedupe';

const square = (x0: number, y0: number, x1: number, y1: number) => ({
  polygons: [{ outer: [[x0, y0], [x1, y0], [x1, y1], [x0, y1]] as [number, number][], holes: [] }],
});

describe('withoutDuplicates', () => {
  it('drops an incoming object that repeats one already on the image (IoU ≥ 0.9), keeps different ones', () => {
    const existing = [square(0, 0, 50, 50)];
    const incoming = [square(0, 0, 50, 49), square(60, 60, 90, 90), square(0, 0, 30, 30)];
    const { added, duplicates } = withoutDuplicates(existing, incoming, 100, 100);
    expect(duplicates).toBe(1);
    expect(added).toEqual([incoming[1], incoming[2]]);
  });

  it('drops repeats inside one answer too', () => {
    const { added, duplicates } = withoutDuplicates([], [square(10, 10, 40, 40), square(10, 10, 40, 40)], 50, 50);
    expect(added).toHaveLength(1);
    expect(duplicates).toBe(1);
  });
});
