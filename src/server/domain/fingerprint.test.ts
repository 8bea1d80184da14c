import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalJson, requestFingerprint } from './fingerprint';

describe('request fingerprint', () => {
  it('ignores key order at every level', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"x":1,"y":2}]},"b":1}');
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (obj) => {
        const reversed = Object.fromEntries(Object.entries(obj).reverse());
        expect(requestFingerprint('POST', '/p', reversed)).toBe(requestFingerprint('POST', '/p', obj));
      }),
    );
  });

  it('differs by method, path and body', () => {
    const base = requestFingerprint('POST', '/api/v1/pvs', { a: 1 });
    expect(requestFingerprint('POST', '/api/v1/segment', { a: 1 })).not.toBe(base);
    expect(requestFingerprint('PUT', '/api/v1/pvs', { a: 1 })).not.toBe(base);
    expect(requestFingerprint('POST', '/api/v1/pvs', { a: 2 })).not.toBe(base);
    expect(requestFingerprint('POST', '/api/v1/pvs', { a: 1, b: undefined })).toBe(base);
  });
});

describe('fingerprint encoding', () => {
  it('cannot be confused by strings that look like structure', () => {
    const a = requestFingerprint('POST', '/p', { a: 'x', b: 'y' });
    expect(requestFingerprint('POST', '/p', { a: 'x1:b', b: 'y' })).not.toBe(a);
    expect(requestFingerprint('POST', '/p', { a: ['x', 'y'] })).not.toBe(requestFingerprint('POST', '/p', { a: ['xy'] }));
    expect(requestFingerprint('POST', '/p', { a: 1 })).not.toBe(requestFingerprint('POST', '/p', { a: '1' }));
    expect(requestFingerprint('POST', '/p', { a: true })).not.toBe(requestFingerprint('POST', '/p', { a: 'true' }));
  });
});
