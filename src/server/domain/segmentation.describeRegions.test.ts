/**
 * Region descriptors for the server's jobs (learned classes): `Segmentation.describeRegions` runs the
 * engine's `describeRegions` on a real worker through the fair queue. The metered phases (runner,
 * credits) are not used by it, so this test gives it none.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_INFERENCE, SAMPLES_DIR } from '../../../test/support/server/harness';
import { WorkerPool } from '../inference/pool';
import { DomainError } from './errors';
import { FairInferenceBackend } from './fairInference';
import type { Credits } from './metered/credits';
import type { MeteredCalls } from './metered/runner';
import { Segmentation, type SegmentationOptions } from './segmentation';

const png = new Uint8Array(readFileSync(join(SAMPLES_DIR, 'chelsea.png')));
const options = { busyRetryAfterSeconds: 3 } as SegmentationOptions;
const unmetered = (backend: ConstructorParameters<typeof Segmentation>[2]) => new Segmentation({} as MeteredCalls, {} as Credits, backend, options);

/** A filled rectangle at chelsea.png's size (451 × 300). */
function box(x0: number, y0: number, x1: number, y1: number) {
  const [width, height] = [451, 300];
  const data = new Uint8Array(width * height);
  for (let y = y0; y < y1; y++) data.fill(1, y * width + x0, y * width + x1);
  return { width, height, data };
}

describe('Segmentation.describeRegions', () => {
  let pool: WorkerPool;
  beforeAll(async () => {
    pool = new WorkerPool({ workers: 1, maxQueue: 2, threads: 1, jobTimeoutMs: 120_000 });
    await pool.ready();
  });
  afterAll(async () => pool?.close());

  it('describes each mask of a photo file on a worker, through the fair queue: one descriptor per mask, in order', async () => {
    const segmentation = unmetered(new FairInferenceBackend(pool));
    const [cat, corner] = [box(100, 50, 350, 300), box(0, 0, 60, 60)];
    const descriptors = await segmentation.describeRegions('account-a', png, [cat, corner]);
    expect(descriptors).toHaveLength(2);
    const again = await segmentation.describeRegions('account-a', png, [corner]);
    expect(again).toEqual([descriptors[1]]);
  });

  it('is refused 503 service-busy, with Retry-After, when no worker place is free', async () => {
    const refused = unmetered(NO_INFERENCE).describeRegions('account-a', png, [box(0, 0, 10, 10)]);
    await expect(refused).rejects.toBeInstanceOf(DomainError);
    await expect(refused).rejects.toMatchObject({ slug: 'service-busy', extra: { retryAfterSeconds: 3 } });
  });
});
