import { describe, expect, it } from 'vitest';
import { TestClock } from './clock';
import { admitAll, AttemptThrottle } from './attemptThrottle';

const policy = { freeAttempts: 3, baseDelayMs: 1000, maxDelayMs: 8000, forgetAfterMs: 60_000 };

describe('attempt throttle', () => {
  it('lets the free attempts through, then doubles the wait with each further attempt up to the cap', () => {
    const clock = new TestClock();
    clock.freeze();
    const throttle = new AttemptThrottle(clock, policy);
    const waits: number[] = [];
    for (let i = 0; i < 7; i++) {
      const answer = throttle.peek('a');
      if (!answer.allowed) {
        waits.push(answer.retryAfterSeconds);
        clock.advance(answer.retryAfterSeconds * 1000);
      }
      throttle.count('a');
    }
    expect(waits).toEqual([1, 2, 4, 8]);
    expect(throttle.peek('b')).toEqual({ allowed: true });
  });

  it('counts on arrival, so a burst is stopped before any attempt has finished; a success clears the key', () => {
    const clock = new TestClock();
    clock.freeze();
    const throttle = new AttemptThrottle(clock, policy);
    const answers = Array.from({ length: 10 }, () => admitAll([{ throttle, key: 'a' }]).allowed);
    expect(answers.filter(Boolean)).toHaveLength(3);
    throttle.clear('a');
    expect(throttle.peek('a')).toEqual({ allowed: true });
  });

  it('admits only when every key does, counting none otherwise; forgets a key left alone', () => {
    const clock = new TestClock();
    clock.freeze();
    const perAccount = new AttemptThrottle(clock, { ...policy, freeAttempts: 1 });
    const perAddress = new AttemptThrottle(clock, policy);
    expect(admitAll([{ throttle: perAccount, key: 'x' }, { throttle: perAddress, key: 'ip' }]).allowed).toBe(true);
    expect(admitAll([{ throttle: perAccount, key: 'x' }, { throttle: perAddress, key: 'ip' }])).toEqual({ allowed: false, retryAfterSeconds: 1 });
    // The refused attempt was counted nowhere: the address has used one of its three.
    expect(admitAll([{ throttle: perAddress, key: 'ip' }]).allowed).toBe(true);
    expect(admitAll([{ throttle: perAddress, key: 'ip' }]).allowed).toBe(true);
    expect(admitAll([{ throttle: perAddress, key: 'ip' }]).allowed).toBe(false);
    clock.advance(61_000);
    expect(perAccount.peek('x')).toEqual({ allowed: true });
  });
});
