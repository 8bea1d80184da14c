import { describe, expect, it } from 'vitest';
import { demoPaymentsAllowed, isLoopbackHost } from './demoPayments';

describe('demo payments', () => {
  it('knows loopback listeners', () => {
    for (const host of ['127.0.0.1', 'localhost', '::1', '[::1]', '127.1.2.3']) expect(isLoopbackHost(host)).toBe(true);
    for (const host of ['0.0.0.0', '::', '192.168.1.5', 'example.com', '']) expect(isLoopbackHost(host)).toBe(false);
  });

  it('are allowed on loopback, elsewhere only when enabled explicitly', () => {
    expect(demoPaymentsAllowed('127.0.0.1', false)).toBe(true);
    expect(demoPaymentsAllowed('0.0.0.0', false)).toBe(false);
    expect(demoPaymentsAllowed('0.0.0.0', true)).toBe(true);
  });
});
