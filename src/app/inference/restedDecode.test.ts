import { describe, expect, it } from 'vitest';
import { RestedDecode, type DecodeKey } from './restedDecode';

const key: DecodeKey = { imageId: 'img-1', revision: 3, x: 100, y: 50, positive: true, multimask: true, previous: undefined, tolerance: 1 };

describe('RestedDecode', () => {
  it('hands the rested decode to a click at the same spot, once', async () => {
    const rested = new RestedDecode<string>();
    rested.remember(key, Promise.resolve('masks'));
    const taken = rested.take({ ...key, x: 100.6, y: 49.5 });
    expect(taken).toBeDefined();
    expect(await taken).toBe('masks');
    expect(rested.take(key)).toBeUndefined();
  });

  it('does not answer a click elsewhere, on another revision, label, tolerance, candidate mode or fed-back mask', () => {
    const rested = new RestedDecode<string>();
    rested.remember(key, Promise.resolve('masks'));
    const others: Partial<DecodeKey>[] = [{ x: 102 }, { revision: 4 }, { positive: false }, { tolerance: 2 }, { multimask: false }, { imageId: 'img-2' }, { previous: new Float32Array(1) }];
    for (const other of others) {
      expect(rested.take({ ...key, ...other })).toBeUndefined();
    }
    expect(rested.take(key)).toBeDefined();
  });

  it('forgets a decode that failed', async () => {
    const rested = new RestedDecode<string>();
    const failing = Promise.reject(new Error('worker gone'));
    rested.remember(key, failing);
    await failing.catch(() => undefined);
    await Promise.resolve();
    expect(rested.take(key)).toBeUndefined();
  });
});
