import { describe, expect, it } from 'vitest';
import { decodeImageField, imageFieldDigest, KnownImages, readUpload } from './image-field';
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

  it('decodes a field until it is known, then only hashes it; bad Base64 keeps its 400 and its digest', () => {
    const known = new KnownImages(2);
    const b64 = bytes.toString('base64');
    const first = readUpload(b64, known);
    expect(Buffer.from(first.bytes!)).toEqual(bytes);
    known.add(first.digest);
    expect(readUpload(Buffer.from(b64), known)).toEqual({ digest: first.digest });
    known.forget(first.digest);
    expect(readUpload(b64, known).bytes).toBeDefined();

    const bad = readUpload('ab$c', known);
    expect(bad.error).toBeInstanceOf(DomainError);
    expect(bad.digest).toBe(imageFieldDigest('ab$c'));
  });

  it('keeps the most recently used digests within its capacity', () => {
    const known = new KnownImages(2);
    known.add('a');
    known.add('b');
    expect(known.has('a')).toBe(true); // a is now the most recent
    known.add('c'); // b goes
    expect([known.has('a'), known.has('b'), known.has('c')]).toEqual([true, false, true]);
  });
});
