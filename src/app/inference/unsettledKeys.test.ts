import { describe, expect, it } from 'vitest';
import { RemoteCallError } from '../remote/remoteClient';
import { UnsettledKeys } from './unsettledKeys';

describe('UnsettledKeys', () => {
  let n = 0;
  const keys = () => new UnsettledKeys(() => `key-${++n}`);

  it('reuses the key of an action whose outcome is unknown (dropped connection)', () => {
    const k = keys();
    const first = k.keyFor('img:3');
    k.failed('img:3', new RemoteCallError('connection lost', 'network-error', null));
    expect(k.keyFor('img:3')).toBe(first);
  });

  it('frees the key after a success or a definite error, and keeps actions apart', () => {
    const k = keys();
    const a = k.keyFor('a');
    const b = k.keyFor('b');
    expect(b).not.toBe(a);
    k.succeeded('a');
    expect(k.keyFor('a')).not.toBe(a);
    k.failed('b', new RemoteCallError('no credits', 402, 'req_1'));
    expect(k.keyFor('b')).not.toBe(b);
    const c = k.keyFor('c');
    k.failed('c', new Error('image could not be encoded'));
    expect(k.keyFor('c')).not.toBe(c);
  });
});
