import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLES_DIR } from '../../../test/support/server/harness';
import { JobWithdrawnError, WorkerPool } from './pool';
import type { InferenceJob } from './protocol';

const png = readFileSync(join(SAMPLES_DIR, 'chelsea.png'));
/** A one-point click at (`x`, 150) on the photo named by `photo` (its file, its digest, its embedding key). */
const click = (x: number, photo: { image?: Uint8Array; imageDigest?: string; cacheKey?: string }): InferenceJob<'pvs'> => ({
  method: 'pvs',
  request: { ...photo, points: [{ x, y: 150, positive: true }], options: { multimask: false } },
});
const job = (x: number) => click(x, { image: new Uint8Array(png) });

describe('WorkerPool slots (one real engine worker, one queue place)', () => {
  let pool: WorkerPool;
  beforeAll(async () => {
    pool = new WorkerPool({ workers: 1, maxQueue: 1, threads: 1, jobTimeoutMs: 120_000 });
    await pool.ready();
  });
  afterAll(async () => pool?.close());

  it('releasing a queued job withdraws it and frees its place; a running job finishes whatever happens to its slot', async () => {
    const running = pool.tryReserve()!;
    const queued = pool.tryReserve()!;
    expect(pool.tryReserve()).toBeUndefined(); // one running + one queued: full

    const first = running.run(job(200));
    const second = queued.run(job(220));
    queued.release();
    await expect(second).rejects.toBeInstanceOf(JobWithdrawnError);

    // The withdrawn job's place is free again at once; the running one's is not.
    const next = pool.tryReserve();
    expect(next).toBeDefined();
    expect(pool.tryReserve()).toBeUndefined();

    running.release(); // too late to withdraw: the worker has it
    const result = await first;
    expect(result.response.prompts[0].predictions[0].masks.length).toBeGreaterThan(0);

    // And the worker took the next job, not the withdrawn one.
    const third = await next!.run(job(240));
    expect(third.response.prompts[0].predictions.length).toBeGreaterThan(0);
    expect(pool.tryReserve()).toBeDefined();
  });

  it('a job sent by digest only gets its file from the loader when the worker does not hold the pixels, and not when it does', async () => {
    const digest = `test-${Math.random()}`;
    let loads = 0;
    const load = () => {
      loads += 1;
      return new Uint8Array(png);
    };
    const byDigest = (x: number) => click(x, { imageDigest: digest });
    const first = await pool.tryReserve()!.run(byDigest(200), load);
    expect(loads).toBe(1);
    const second = await pool.tryReserve()!.run(byDigest(200), load);
    expect(loads).toBe(1); // decoded pixels kept under the digest
    expect(second.response.prompts).toEqual(first.response.prompts);
  });

  it('a loader that fails, or none at all, fails the job as an undecodable image; the worker carries on', async () => {
    const job = () => click(200, { imageDigest: `test-${Math.random()}` });
    await expect(
      pool.tryReserve()!.run(job(), () => {
        throw new Error('gone');
      }),
    ).rejects.toMatchObject({ name: 'ImageDecodeError', message: expect.stringContaining('gone') });
    await expect(pool.tryReserve()!.run(job())).rejects.toMatchObject({ name: 'ImageDecodeError' });
    expect((await pool.tryReserve()!.run(job(), () => new Uint8Array(png))).response.prompts[0].predictions.length).toBeGreaterThan(0);
  });

  it('a slot released before its job started gives its place back and cannot run afterwards', async () => {
    const slot = pool.tryReserve()!;
    slot.release();
    await expect(slot.run(job(200))).rejects.toThrow(/used twice/);
  });
});

describe('WorkerPool affinity (two real engine workers, one thread each)', () => {
  let pool: WorkerPool;
  beforeAll(async () => {
    pool = new WorkerPool({ workers: 2, maxQueue: 4, threads: 1, jobTimeoutMs: 120_000 });
    await pool.ready();
  });
  afterAll(async () => pool?.close());

  const photo = (key: string, x: number) => click(x, { image: new Uint8Array(png), imageDigest: key, cacheKey: key });
  const byDigest = (key: string, x: number) => click(x, { imageDigest: key, cacheKey: key });

  it('sends a click to the free worker that holds its photo, not to the first free one; a click on a held photo is quick, a new photo or a text prompt is not', async () => {
    const [p, q] = [`p-${Math.random()}`, `q-${Math.random()}`];
    // Both at once: one photo per worker.
    await Promise.all([pool.tryReserve()!.run(photo(q, 200)), pool.tryReserve()!.run(photo(p, 200))]);
    expect(pool.isQuick(byDigest(p, 210))).toBe(true);
    expect(pool.isQuick(byDigest(`unseen-${Math.random()}`, 210))).toBe(false);
    expect(pool.isQuick({ method: 'segment', request: { imageDigest: p, cacheKey: p } })).toBe(false);

    // Sent without the file: only the worker holding the photo's pixels answers without reading it again.
    let loads = 0;
    const load = () => {
      loads += 1;
      return new Uint8Array(png);
    };
    for (const x of [180, 200, 220, 240]) {
      await pool.tryReserve()!.run(byDigest(p, x), load);
      await pool.tryReserve()!.run(byDigest(q, x), load);
    }
    expect(loads).toBe(0);
  });
});
