import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobPhoto, SAMPLES_DIR } from '../../../test/support/server/harness';
import { JobWithdrawnError, WorkerPool, type EngineJob, type InferenceBackend } from '../inference/pool';
import { pvsJob } from './engineJobs';
import { DomainError } from './errors';
import { FairInferenceBackend } from './fairInference';

const png = readFileSync(join(SAMPLES_DIR, 'chelsea.png'));
/** A photo the worker has not seen under this key: a decode and an encoder run. */
const newPhoto = (key: string, x = 220) =>
  pvsJob(jobPhoto(key, () => new Uint8Array(png)), { points: [{ x, y: 160, positive: true }], options: { multimask: false, mirrorAverage: false } });
/** A click on a photo the worker holds: a decoder run. */
const click = (key: string, x: number) => newPhoto(key, x);

describe('FairInferenceBackend over one real engine worker', () => {
  let pool: WorkerPool;
  beforeAll(async () => {
    pool = new WorkerPool({ workers: 1, maxQueue: 16, threads: 2, jobTimeoutMs: 120_000 });
    await pool.ready();
  });
  afterAll(async () => pool?.close());

  it('serves a clicking account between a flooding account’s jobs, not after its backlog', async () => {
    const fair = new FairInferenceBackend(pool, { perAccountQueued: 8, perAccountRunning: 1, retryAfterSeconds: 1 });
    const warm = `b-${Math.random()}`;
    await fair.tryReserve('b')!.run(newPhoto(warm));

    const finished: string[] = [];
    const submit = (account: string, name: string, job: EngineJob<unknown>) =>
      fair
        .tryReserve(account)!
        .run(job)
        .then(() => void finished.push(name));
    const flood = [1, 2, 3, 4].map((i) => submit('a', `a${i}`, newPhoto(`a-${i}-${Math.random()}`)));
    // The clicks arrive while a1 runs, behind a2…a4 in arrival order.
    const clicks = [200, 240].map((x, i) => submit('b', `b${i + 1}`, click(warm, x)));
    await Promise.all([...flood, ...clicks]);
    expect(finished).toEqual(['a1', 'b1', 'b2', 'a2', 'a3', 'a4']);
    expect(fair.backlog().jobs).toBe(0);
  });

  it('refuses an account beyond its share of the queue with 429 account-queue-full, while another account still gets a place', async () => {
    const fair = new FairInferenceBackend(pool, { perAccountQueued: 2, perAccountRunning: 1, retryAfterSeconds: 3 });
    const first = fair.tryReserve('a')!;
    const second = fair.tryReserve('a')!;
    let refusal: unknown;
    try {
      fair.tryReserve('a');
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(DomainError);
    expect(refusal).toMatchObject({ slug: 'account-queue-full', status: 429, extra: { retryAfterSeconds: 3 } });
    const other = fair.tryReserve('b');
    expect(other).toBeDefined();
    other!.release();
    first.release();
    const again = fair.tryReserve('a'); // the released place is the account's again
    expect(again).toBeDefined();
    again!.release();
    second.release();
    expect(pool.backlog().jobs).toBe(0);
  });

  it('a job waiting for its turn is withdrawn by release, and its place given back to the pool', async () => {
    const fair = new FairInferenceBackend(pool, { perAccountQueued: 4, perAccountRunning: 1, retryAfterSeconds: 1 });
    const warm = `w-${Math.random()}`;
    const running = fair.tryReserve('a')!.run(newPhoto(warm));
    const waitingSlot = fair.tryReserve('a')!; // a's second job waits: a already runs one
    const waiting = waitingSlot.run(click(warm, 200));
    waitingSlot.release();
    await expect(waiting).rejects.toBeInstanceOf(JobWithdrawnError);
    await running;
    expect(fair.backlog().jobs).toBe(0);
    expect(pool.backlog().jobs).toBe(0);
  });
});

describe('FairInferenceBackend: quick jobs may use every free worker, long ones keep to the share', () => {
  /** A backend of two workers whose jobs finish when the test says: it records which jobs run at once. */
  function scriptedBackend(quickKeys: Set<string>) {
    const running = new Set<string>();
    const finishers = new Map<string, () => void>();
    const backend: InferenceBackend = {
      description: 'scripted',
      backlog: () => ({ jobs: running.size, workers: 2 }),
      isQuick: (job) => job.embedding !== undefined && quickKeys.has(job.embedding.key) && running.size < 2,
      tryReserve: () => ({
        run: <Result>(job: EngineJob<Result>) =>
          new Promise<Result>((resolve) => {
            const name = job.embedding!.key;
            running.add(name);
            finishers.set(name, () => {
              running.delete(name);
              resolve({ prompts: [] } as Result);
            });
          }),
        release: () => undefined,
      }),
      close: async () => undefined,
    };
    return { backend, running, finish: (name: string) => finishers.get(name)!() };
  }
  const job = (key: string): EngineJob<unknown> => ({ embedding: { key, mirrored: false }, decodesOnly: true, run: async () => undefined });
  const settings = { perAccountQueued: 8, perAccountRunning: 1, retryAfterSeconds: 1 };

  it('runs two quick clicks of one account side by side on the two workers', async () => {
    const { backend, running, finish } = scriptedBackend(new Set(['c1', 'c2']));
    const fair = new FairInferenceBackend(backend, settings);
    const done = ['c1', 'c2'].map((key) => fair.tryReserve('a')!.run(job(key)));
    expect([...running]).toEqual(['c1', 'c2']);
    finish('c1');
    finish('c2');
    await Promise.all(done);
  });

  it('keeps an account’s long jobs to one worker, leaving the other to a second account', async () => {
    const { backend, running, finish } = scriptedBackend(new Set());
    const fair = new FairInferenceBackend(backend, settings);
    const a = ['a1', 'a2'].map((key) => fair.tryReserve('a')!.run(job(key)));
    expect([...running]).toEqual(['a1']);
    const b = fair.tryReserve('b')!.run(job('b1'));
    expect([...running]).toEqual(['a1', 'b1']);
    finish('a1');
    await a[0];
    expect([...running]).toEqual(['b1', 'a2']);
    finish('b1');
    finish('a2');
    await Promise.all([...a, b]);
  });
});
