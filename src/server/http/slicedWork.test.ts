import { describe, expect, it } from 'vitest';
import { SlicedWork } from './slicedWork';

const spin = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

describe('SlicedWork', () => {
  it('gives the event loop a turn between slices of a burst', async () => {
    const work = new SlicedWork(5);
    let done = 0;
    for (let i = 0; i < 100; i++) work.add(() => (spin(1), (done += 1)));
    // A timer due at once runs after the first slice, long before the 100 ms of work has all run.
    const seenByTimer = await new Promise<number>((resolve) => setTimeout(() => resolve(done), 0));
    expect(seenByTimer).toBeGreaterThan(0);
    expect(seenByTimer).toBeLessThan(100);
    while (work.waiting) await new Promise((r) => setImmediate(r));
    expect(done).toBe(100);
  });

  it('runs the rest when a task throws', async () => {
    const work = new SlicedWork();
    const ran: number[] = [];
    work.add(() => {
      throw new Error('gone');
    });
    work.add(() => ran.push(2));
    await new Promise((r) => setTimeout(r, 10));
    expect(ran).toEqual([2]);
  });
});
