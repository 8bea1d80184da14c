import { describe, expect, it } from 'vitest';
import { FaultInjector, InjectedFault, parseFaultInjection } from './faults';

describe('FAULT_INJECTION', () => {
  it('parses rates and the engine delay', () => {
    expect(parseFaultInjection('engine=0.3,refund=0.25')).toEqual({ engine: 0.3, refund: 0.25 });
    expect(parseFaultInjection(' empty=1 , engine_delay_ms=250')).toEqual({ empty: 1, engine_delay_ms: 250 });
    expect(parseFaultInjection(undefined)).toEqual({});
    expect(parseFaultInjection('')).toEqual({});
  });

  it('refuses unknown kinds and rates outside [0, 1]', () => {
    expect(() => parseFaultInjection('disk=0.1')).toThrow(/unknown kind/);
    expect(() => parseFaultInjection('engine=1.5')).toThrow(/\[0, 1\]/);
    expect(() => parseFaultInjection('engine=abc')).toThrow();
  });

  it('fails the given fraction of calls', () => {
    let i = 0;
    const sequence = [0.1, 0.5, 0.29, 0.9];
    const faults = new FaultInjector({ engine: 0.3 }, () => sequence[i++ % sequence.length]);
    expect([0, 1, 2, 3].map(() => faults.shouldFail('engine'))).toEqual([true, false, true, false]);
    expect(new FaultInjector({}).shouldFail('refund')).toBe(false);
    expect(() => new FaultInjector({ refund: 1 }).maybeThrow('refund')).toThrow(InjectedFault);
  });
});
