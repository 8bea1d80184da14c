import { describe, expect, it } from 'vitest';
import { ANONYMOUS_SPACE, deriveSpaceKey, seal, sealJson, spaceOf, unseal, unsealJson } from './localSpace';

describe('local spaces', () => {
  it('names one space per account, the same for any spelling of the email, without the email in it', async () => {
    expect(await spaceOf(null)).toBe(ANONYMOUS_SPACE);
    const alice = await spaceOf('alice@example.com');
    expect(alice).toBe(await spaceOf(' Alice@Example.com '));
    expect(alice).not.toBe(await spaceOf('bob@example.com'));
    expect(alice).not.toContain('alice');
  });

  it('opens a sealed entry only with the same email and password', async () => {
    const key = await deriveSpaceKey('alice@example.com', 'correct horse battery');
    const sealed = await sealJson(key, { images: ['alice-holiday.jpg'] });
    expect(new TextDecoder().decode(sealed.data)).not.toContain('alice-holiday');
    expect(await unsealJson(await deriveSpaceKey('ALICE@example.com', 'correct horse battery'), sealed)).toEqual({ images: ['alice-holiday.jpg'] });
    await expect(unseal(await deriveSpaceKey('alice@example.com', 'wrong password!'), sealed)).rejects.toThrow();
    await expect(unseal(await deriveSpaceKey('bob@example.com', 'correct horse battery'), sealed)).rejects.toThrow();
  });

  it('never reuses an IV, so equal entries do not look equal on disk', async () => {
    const key = await deriveSpaceKey('a@b.co', 'password1');
    const bytes = new Uint8Array([1, 2, 3]);
    const [a, b] = [await seal(key, bytes), await seal(key, bytes)];
    expect(Array.from(a.iv)).not.toEqual(Array.from(b.iv));
    expect(Array.from(await unseal(key, b))).toEqual([1, 2, 3]);
  });
});
