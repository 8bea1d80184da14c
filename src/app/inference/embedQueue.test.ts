import { describe, expect, it } from 'vitest';
import { EmbedQueue } from './embedQueue';

/** A job that records when it starts and finishes only when the test says so. */
function heldJobs() {
  const started: string[] = [];
  const release = new Map<string, () => void>();
  const job = (key: string) => () =>
    new Promise<string>((resolve) => {
      started.push(key);
      release.set(key, () => resolve(key));
    });
  const finish = async (key: string) => {
    release.get(key)!();
    // Let the queue start the next job.
    await new Promise((r) => setTimeout(r, 0));
  };
  return { started, job, finish };
}

describe('EmbedQueue', () => {
  it('runs one job at a time, in the order asked', async () => {
    const queue = new EmbedQueue();
    const { started, job, finish } = heldJobs();
    const answers = ['a', 'b', 'c'].map((key) => queue.schedule(key, job(key), 'background'));
    expect(started).toEqual(['a']);
    await finish('a');
    expect(started).toEqual(['a', 'b']);
    await finish('b');
    await finish('c');
    expect(await Promise.all(answers)).toEqual(['a', 'b', 'c']);
  });

  it('puts a photo asked for now before every photo that waits in the background: it waits only for the run under way', async () => {
    const queue = new EmbedQueue();
    const { started, job, finish } = heldJobs();
    for (let i = 1; i <= 19; i++) void queue.schedule(`photo-${i}`, job(`photo-${i}`), 'background');
    const shown = queue.schedule('shown', job('shown'), 'now');
    expect(started).toEqual(['photo-1']);
    await finish('photo-1');
    expect(started).toEqual(['photo-1', 'shown']);
    await finish('shown');
    await expect(shown).resolves.toBe('shown');
    expect(started.at(-1)).toBe('photo-2');
  });

  it('hurries a photo that already waits in the background to the front', async () => {
    const queue = new EmbedQueue();
    const { started, job, finish } = heldJobs();
    for (const key of ['a', 'b', 'c', 'd']) void queue.schedule(key, job(key), 'background');
    expect(queue.hurry('d')).toBe(true);
    expect(queue.hurry('a')).toBe(false); // already running
    expect(queue.waitingKeys()).toEqual(['d', 'b', 'c']);
    await finish('a');
    expect(started).toEqual(['a', 'd']);
  });

  it('goes on after a job that fails', async () => {
    const queue = new EmbedQueue();
    const failed = queue.schedule('broken', () => Promise.reject(new Error('no pixels')), 'now');
    const next = queue.schedule('fine', async () => 'fine', 'background');
    await expect(failed).rejects.toThrow('no pixels');
    await expect(next).resolves.toBe('fine');
    expect(queue.isWaiting('fine')).toBe(false);
  });
});
