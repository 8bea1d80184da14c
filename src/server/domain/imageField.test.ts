import { describe, expect, it } from 'vitest';
import type { LruCache } from '../../engine/lru';
import { contentDigest, decodeImageField, imageFieldDigest, KnownImages, readUpload, RecentFields } from './imageField';
import { DomainError } from './errors';

const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 250, 251]);

describe('image field', () => {
  it('decodes plain Base64 and data URIs of any image media type', () => {
    const b64 = bytes.toString('base64');
    expect(Buffer.from(decodeImageField(b64))).toEqual(bytes);
    expect(Buffer.from(decodeImageField(`data:image/png;base64,${b64}`))).toEqual(bytes);
    expect(Buffer.from(decodeImageField(`data:image/jpeg;name=x.jpg;base64,${b64}`))).toEqual(bytes);
    expect(Buffer.from(decodeImageField(bytes.toString('base64url')))).toEqual(bytes);
    // Unpadded and URL-safe forms of other lengths.
    expect(Buffer.from(decodeImageField('QQ'))).toEqual(Buffer.from('A'));
    expect(Buffer.from(decodeImageField('QUI'))).toEqual(Buffer.from('AB'));
    expect(Buffer.from(decodeImageField('-_-_'))).toEqual(Buffer.from([0xfb, 0xff, 0xbf]));
  });

  it('refuses what is not Base64 instead of silently skipping characters', () => {
    for (const bad of ['', 'ab$c', 'YWJj\nZGVm', 'A', 'data:image/png,abc', 'data:image/png;base64,', 'YQ===', 'QQ==QQ==', 'QQ=A', 'Q===', '====', 'YW Jj', 'YWJj=', '\u00e9AAA', 'data:image/png;x=\u0001;base64,QQ==']) {
      expect(() => decodeImageField(bad)).toThrow(DomainError);
    }
  });

  it('names a field by the digest of its characters, the same whether it arrived as a string or as body bytes', () => {
    const b64 = bytes.toString('base64');
    expect(imageFieldDigest(b64)).toBe(imageFieldDigest(Buffer.from(b64, 'latin1')));
    expect(imageFieldDigest(b64)).not.toBe(imageFieldDigest(`data:image/png;base64,${b64}`));
    // A string that is not ASCII never shares a digest with ASCII bytes (its Latin-1 truncation would).
    expect(imageFieldDigest('\u0141QQ=')).not.toBe(imageFieldDigest(Buffer.from('\u0141QQ=', 'latin1')));
    expect(Buffer.from(decodeImageField(Buffer.from(`data:image/png;base64,${b64}`, 'latin1')))).toEqual(bytes);
  });

  it('decodes a field until it is known, then only hashes it; bad Base64 keeps its 400 and is named by its characters', () => {
    const known = new KnownImages(2);
    const b64 = bytes.toString('base64');
    const first = readUpload(b64, known);
    expect(Buffer.from(first.bytes!)).toEqual(bytes);
    expect(first.digest).toBe(contentDigest(bytes));
    known.add(first.fieldDigest, { digest: first.digest, width: 3, height: 2 });
    expect(readUpload(Buffer.from(b64), known)).toEqual({ digest: first.digest, fieldDigest: first.fieldDigest, size: { width: 3, height: 2 } });
    known.forget(first.fieldDigest);
    expect(readUpload(b64, known).bytes).toBeDefined();

    const bad = readUpload('ab$c', known);
    expect(bad.error).toBeInstanceOf(DomainError);
    expect(bad.digest).toBe(`field:${imageFieldDigest('ab$c')}`);
  });

  it('names one file by its decoded bytes however it is spelled: data URI or bare, any media type', () => {
    const b64 = bytes.toString('base64');
    const names = [b64, `data:image/png;base64,${b64}`, `data:image/jpeg;base64,${b64}`].map((field) => readUpload(field).digest);
    expect(new Set(names).size).toBe(1);
    expect(readUpload(`data:image/png;base64,${b64}`).fieldDigest).not.toBe(readUpload(b64).fieldDigest);
  });

  it('keeps the most recently used fields within its capacity', () => {
    const known = new KnownImages(2);
    const image = (digest: string) => ({ digest, width: 1, height: 1 });
    known.add('a', image('A'));
    known.add('b', image('B'));
    expect(known.get('a')?.digest).toBe('A'); // a is now the most recent
    known.add('c', image('C')); // b goes
    expect([known.get('a'), known.get('b'), known.get('c')].map((k) => k?.digest)).toEqual(['A', undefined, 'C']);
  });

  it('recognises the field sent last under a name by its bytes, and hashes anything else', () => {
    const recent = new RecentFields(64);
    const a = Buffer.from('QUJD'); // 4 bytes
    const b = Buffer.from('QUJE');
    expect(recent.digest('n', a)).toBe(imageFieldDigest(a));
    // The same bytes in another buffer (the next request's body): remembered, and right.
    expect(recent.digest('n', Buffer.from(a))).toBe(imageFieldDigest(a));
    // Other bytes under the same name: hashed, not mistaken for the remembered ones.
    expect(recent.digest('n', b)).toBe(imageFieldDigest(b));
    expect(recent.digest('n', Buffer.from('QUJ'))).toBe(imageFieldDigest('QUJ'));
    // A copy is kept: changing the request's buffer afterwards cannot change what is remembered.
    const body = Buffer.from('QUJG');
    recent.digest('m', body);
    body.write('QUJH');
    expect(recent.digest('m', Buffer.from('QUJH'))).toBe(imageFieldDigest('QUJH'));
    expect(recent.digest('s', 'QUJD')).toBe(imageFieldDigest('QUJD'));
  });

  it('stays within its byte budget, least recently used out', () => {
    const recent = new RecentFields(64); // fields of up to 8 bytes are kept
    const fields = Array.from({ length: 12 }, (_, i) => Buffer.from(`QUJD${String(i).padStart(4, '0')}`));
    fields.forEach((f, i) => recent.digest(`n${i}`, f));
    const kept = (recent as unknown as { byName: LruCache<string, { bytes: Buffer }> }).byName;
    expect(kept.keys().reduce((sum, name) => sum + kept.peek(name)!.bytes.length, 0)).toBeLessThanOrEqual(64);
    expect(kept.keys()).toEqual(['n4', 'n5', 'n6', 'n7', 'n8', 'n9', 'n10', 'n11']);
    expect(recent.digest('big', Buffer.alloc(9, 0x41))).toBe(imageFieldDigest(Buffer.alloc(9, 0x41))); // over 1/8 of the budget: not kept
    expect(kept.has('big')).toBe(false);
  });
});
