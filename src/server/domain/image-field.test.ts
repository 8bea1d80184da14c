import { describe, expect, it } from 'vitest';
import { decodeImageField } from './image-field';
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
});
