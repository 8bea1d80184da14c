import { describe, expect, it } from 'vitest';
import { FairQueue } from './fairQueue';

/** Serves the queue one job at a time (one worker), each job costing what its name says. */
function drain(queue: FairQueue<string>, cost: (item: string) => number, limit = 100): string[] {
  const order: string[] = [];
  while (order.length < limit) {
    const next = queue.next();
    if (!next) break;
    order.push(next.item);
    queue.charge(next.account, cost(next.item));
  }
  return order;
}

describe('FairQueue', () => {
  it('alternates between two accounts with equal jobs (round-robin), not first come first served', () => {
    const queue = new FairQueue<string>();
    for (let i = 1; i <= 4; i += 1) queue.push('a', `a${i}`);
    for (let i = 1; i <= 4; i += 1) queue.push('b', `b${i}`);
    expect(drain(queue, () => 10)).toEqual(['a1', 'b1', 'a2', 'b2', 'a3', 'b3', 'a4', 'b4']);
  });

  it('serves a clicking account before a flooder’s backlog of expensive jobs: it waits only for the job already running', () => {
    const queue = new FairQueue<string>();
    for (let i = 1; i <= 10; i += 1) queue.push('flood', `f${i}`);
    const first = queue.next()!;
    expect(first.item).toBe('f1');
    // The clicks arrive while f1 runs.
    for (let i = 1; i <= 3; i += 1) queue.push('click', `c${i}`);
    queue.charge('flood', 1400);
    const rest = drain(queue, (item) => (item.startsWith('f') ? 1400 : 40));
    expect(rest.slice(0, 3)).toEqual(['c1', 'c2', 'c3']);
    expect(rest.slice(3)).toEqual(['f2', 'f3', 'f4', 'f5', 'f6', 'f7', 'f8', 'f9', 'f10']);
  });

  it('shares worker time, not job counts: cheap jobs run many times for each expensive one', () => {
    const queue = new FairQueue<string>();
    for (let i = 1; i <= 3; i += 1) queue.push('flood', `f${i}`);
    for (let i = 1; i <= 30; i += 1) queue.push('click', `c${i}`);
    const order = drain(queue, (item) => (item.startsWith('f') ? 100 : 10));
    // f1 goes first (oldest among equals); then ten clicks per flood job.
    expect(order.indexOf('f2') - order.indexOf('f1')).toBeGreaterThanOrEqual(10);
    expect(order.filter((i) => i.startsWith('c'))).toHaveLength(30);
  });

  it('does not bank idle time: an account that was away starts at the others’ usage, not at zero', () => {
    const queue = new FairQueue<string>();
    for (let i = 1; i <= 5; i += 1) queue.push('busy', `busy${i}`);
    drain(queue, () => 100, 3); // busy has used 300
    queue.push('late', 'late1');
    queue.push('late', 'late2');
    queue.push('late', 'late3');
    // It starts where busy's last job started (200): one job ahead, then they alternate. Had it
    // started at zero, all three would run before busy's next job.
    expect(drain(queue, () => 100)).toEqual(['late1', 'busy4', 'late2', 'busy5', 'late3']);
  });

  it('keeps a flooder’s debt across a pause: stopping for a moment does not start it afresh', () => {
    const queue = new FairQueue<string>();
    queue.push('flood', 'f1');
    queue.push('click', 'c1');
    drain(queue, (item) => (item === 'f1' ? 1000 : 10)); // flood used 1000, click 10
    queue.push('flood', 'f2');
    queue.push('click', 'c2');
    queue.push('click', 'c3');
    expect(drain(queue, (item) => (item.startsWith('f') ? 1000 : 10))).toEqual(['c2', 'c3', 'f2']);
  });

  it('forgets all usage once the workers fall idle with nothing waiting', () => {
    const queue = new FairQueue<string>();
    queue.push('photo', 'p1');
    drain(queue, () => 1000);
    queue.forgetUsage();
    queue.push('photo', 'p2');
    queue.push('flood', 'f1');
    // Without forgetting, photo's 1000 would put f1 first although nobody waited for p1.
    expect(drain(queue, () => 10)).toEqual(['p2', 'f1']);
    queue.push('photo', 'p3');
    queue.forgetUsage(); // not idle: p3 waits, nothing is forgotten
    expect(queue.size).toBe(1);
  });

  it('skips accounts the caller does not admit now (per-account concurrency) and withdraws jobs', () => {
    const queue = new FairQueue<string>();
    queue.push('a', 'a1');
    queue.push('a', 'a2');
    queue.push('b', 'b1');
    expect(queue.next((account) => account !== 'a')?.item).toBe('b1');
    expect(queue.remove('a', 'a1')).toBe(true);
    expect(queue.remove('a', 'a1')).toBe(false);
    expect(queue.size).toBe(1);
    expect(queue.next()?.item).toBe('a2');
    expect(queue.next()).toBeUndefined();
  });
});
