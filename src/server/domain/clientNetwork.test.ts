import { describe, expect, it } from 'vitest';
import { clientNetwork } from './clientNetwork';

describe('clientNetwork', () => {
  it('keeps an IPv4 address, and the IPv4 address inside an IPv4-mapped IPv6 one', () => {
    expect(clientNetwork('203.0.113.7')).toBe('203.0.113.7');
    expect(clientNetwork('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('counts every address of one IPv6 /64 as one network, however it is written', () => {
    const network = clientNetwork('2001:db8:aa:1::1');
    expect(network).toBe('2001:db8:aa:1::/64');
    expect(clientNetwork('2001:0db8:00aa:0001:ffff:eeee:dddd:cccc')).toBe(network);
    expect(clientNetwork('2001:DB8:AA:1:0:0:0:9')).toBe(network);
    expect(clientNetwork('2001:db8:aa:2::1')).not.toBe(network);
    expect(clientNetwork('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientNetwork('::1')).toBe('0:0:0:0::/64');
  });

  it('leaves anything that is not an address as it is', () => {
    expect(clientNetwork('unknown')).toBe('unknown');
  });
});
