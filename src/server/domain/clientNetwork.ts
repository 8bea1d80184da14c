/**
 * The unit of client address the login throttle counts (authThrottles.ts): an IPv4 address as it
 * is, an IPv6 address by its /64. A /64 is one subscriber's network and its holder can take a new
 * address in it for every request, so counting single IPv6 addresses would count nothing.
 */
import { isIPv4, isIPv6 } from 'node:net';

const MAPPED_IPV4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

export function clientNetwork(address: string): string {
  const mapped = MAPPED_IPV4.exec(address);
  if (mapped && isIPv4(mapped[1])) return mapped[1];
  if (!isIPv6(address)) return address;
  const [head, tail = ''] = address.toLowerCase().split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = address.includes('::') && tail ? tail.split(':') : [];
  // An IPv4 tail (`…:1.2.3.4`) fills the last two groups, which a /64 never reaches.
  const groups = [...headGroups, ...Array(Math.max(0, 8 - headGroups.length - tailGroups.length)).fill('0'), ...tailGroups];
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}
