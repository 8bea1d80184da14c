import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobPhoto, SAMPLES_DIR } from '../../../test/support/server/harness';
import { pvsJob, segmentJob, type JobPhoto } from '../domain/engineJobs';
import { DecodedPhotos } from '../domain/decodedPhotos';
import { JobWithdrawnError, WorkerPool } from './pool';

const png = readFileSync(join(SAMPLES_DIR, 'chelsea.png'));
const file = () => new Uint8Array(png);
/** A one-point click at (`x`, 150) on `photo`. */
const click = (x: number, photo: JobPhoto) => pvsJob(photo, { points: [{ x, y: 150, positive: true }], options: { multimask: false, mirrorAverage: false } });
const newPhoto = () => jobPhoto(`test-${Math.random()}`, file);

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

    const first = running.run(click(200, newPhoto()));
    const second = queued.run(click(220, newPhoto()));
    queued.release();
    await expect(second).rejects.toBeInstanceOf(JobWithdrawnError);

    // The withdrawn job's place is free again at once; the running one's is not.
    const next = pool.tryReserve();
    expect(next).toBeDefined();
    expect(pool.tryReserve()).toBeUndefined();

    running.release(); // too late to withdraw: the worker has it
    const result = await first;
    expect(result.prompts[0].predictions[0].masks.length).toBeGreaterThan(0);

    // And the worker took the next job, not the withdrawn one.
    const third = await next!.run(click(240, newPhoto()));
    expect(third.prompts[0].predictions.length).toBeGreaterThan(0);
    expect(pool.tryReserve()).toBeDefined();
  });

  it('a click on a photo its worker holds is a decoder run alone: the photo is neither read nor decoded again', async () => {
    const photo = newPhoto();
    const first = await pool.tryReserve()!.run(click(200, photo));
    expect(photo.loads).toBe(1);
    const second = await pool.tryReserve()!.run(click(200, jobPhoto(photo.cacheKey, () => { throw new Error('not needed'); })));
    expect(second.prompts).toEqual(first.prompts);
  });

  it('a click the pool sends to a worker whose engine let the embedding go is answered all the same: the photo is embedded again', async () => {
    const photo = newPhoto();
    const first = await pool.tryReserve()!.run(click(200, photo));
    // Any EngineApi call is a job: here the worker's engine drops every embedding, and the pool does not know.
    await pool.tryReserve()!.run({ run: (engine) => engine.forget({}) });
    const again = jobPhoto(photo.cacheKey, file);
    const second = await pool.tryReserve()!.run(click(200, again));
    expect(again.loads).toBe(1);
    expect(second.prompts).toEqual(first.prompts);
  });

  it('a photo that cannot be read fails its job as an undecodable image; the worker carries on', async () => {
    const unreadable = jobPhoto(`test-${Math.random()}`, () => {
      throw new Error('gone');
    });
    await expect(pool.tryReserve()!.run(click(200, unreadable))).rejects.toMatchObject({ name: 'ImageDecodeError', message: expect.stringContaining('gone') });
    const truncated = jobPhoto(`test-${Math.random()}`, () => new Uint8Array(png.subarray(0, 2000)));
    await expect(pool.tryReserve()!.run(click(200, truncated))).rejects.toMatchObject({ name: 'ImageDecodeError' });
    expect((await pool.tryReserve()!.run(click(200, newPhoto()))).prompts[0].predictions.length).toBeGreaterThan(0);
  });

  it('a slot released before its job started gives its place back and cannot run afterwards', async () => {
    const slot = pool.tryReserve()!;
    slot.release();
    await expect(slot.run(click(200, newPhoto()))).rejects.toThrow(/used twice/);
  });
});

describe('WorkerPool affinity (two real engine workers, one thread each)', () => {
  let pool: WorkerPool;
  beforeAll(async () => {
    pool = new WorkerPool({ workers: 2, maxQueue: 4, threads: 1, jobTimeoutMs: 120_000 });
    await pool.ready();
  });
  afterAll(async () => pool?.close());

  it('sends a click to the free worker that holds its photo, not to the first free one; a click on a held photo is quick, a new photo or a text prompt is not', async () => {
    const decoded = new DecodedPhotos();
    const [p, q] = [jobPhoto(`p-${Math.random()}`, file, decoded), jobPhoto(`q-${Math.random()}`, file, decoded)];
    // Both at once: one photo per worker.
    await Promise.all([pool.tryReserve()!.run(click(200, q)), pool.tryReserve()!.run(click(200, p))]);
    expect(pool.isQuick(click(210, p))).toBe(true);
    expect(pool.isQuick(click(210, newPhoto()))).toBe(false);
    expect(pool.isQuick(segmentJob(p, ['cat']))).toBe(false);

    // Clicks on the worker holding the photo's embedding need no pixels: on the other one they would.
    const [pixelsOfP, pixelsOfQ] = [p.loads, q.loads];
    const fresh = new DecodedPhotos(); // nothing decoded here: a click sent to the wrong worker would read the file
    const [byKeyP, byKeyQ] = [jobPhoto(p.cacheKey, file, fresh), jobPhoto(q.cacheKey, file, fresh)];
    for (const x of [180, 200, 220, 240]) {
      await pool.tryReserve()!.run(click(x, byKeyP));
      await pool.tryReserve()!.run(click(x, byKeyQ));
    }
    expect([byKeyP.loads, byKeyQ.loads, p.loads - pixelsOfP, q.loads - pixelsOfQ]).toEqual([0, 0, 0, 0]);
  });
});
