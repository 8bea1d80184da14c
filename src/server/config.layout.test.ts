import { describe, expect, it } from 'vitest';
import { configFromEnv, defaultInferenceLayout } from './config';

describe('the inference pool’s default shape', () => {
  it('is one single-threaded worker per core, up to eight, the remaining cores as threads', () => {
    expect(defaultInferenceLayout(1)).toEqual({ workers: 1, threads: 1 });
    expect(defaultInferenceLayout(2)).toEqual({ workers: 2, threads: 1 });
    expect(defaultInferenceLayout(8)).toEqual({ workers: 8, threads: 1 });
    expect(defaultInferenceLayout(16)).toEqual({ workers: 8, threads: 2 });
  });

  it('gives the cores to the workers asked for when INFERENCE_WORKERS is set, and INFERENCE_THREADS overrides', () => {
    expect(defaultInferenceLayout(4, 1)).toEqual({ workers: 1, threads: 4 });
    const one = configFromEnv({ INFERENCE_WORKERS: '1' }).inference;
    expect(one.workers).toBe(1);
    expect(one.threads).toBeGreaterThanOrEqual(1);
    const set = configFromEnv({ INFERENCE_WORKERS: '3', INFERENCE_THREADS: '2' }).inference;
    expect([set.workers, set.threads]).toEqual([3, 2]);
  });
});
