import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { imageSpan, parseMeteredJson } from './meteredJson';

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_';
const base64Text = fc.string({ unit: fc.constantFrom(...BASE64.split('')), maxLength: 200 });
const imageValue = fc.oneof(base64Text, base64Text.map((b) => `data:image/png;base64,${b}`));

/** What JSON.parse says: the value, or that it throws. */
function reference(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function agreesWithJsonParse(text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  const expected = reference(text);
  if (expected.ok) expect(parseMeteredJson(bytes)).toStrictEqual(expected.value);
  else expect(() => parseMeteredJson(bytes)).toThrow(SyntaxError);
}

/** A body as a client might write it: members in any order, any spacing, the image among them. */
const body = fc
  .record({
    image: fc.oneof(imageValue, fc.jsonValue()),
    others: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 }),
    space: fc.constantFrom(undefined, 0, 1, 2, '\t'),
    imageFirst: fc.boolean(),
  })
  .map(({ image, others, space, imageFirst }) => {
    const rest = Object.fromEntries(Object.entries(others).filter(([k]) => k !== 'image'));
    const value = imageFirst ? { image, ...rest } : { ...rest, image };
    return JSON.stringify(value, null, space);
  });

describe('parseMeteredJson', () => {
  it('takes the fast path for an ordinary body and returns what JSON.parse returns', () => {
    const text = JSON.stringify({ points: [{ x: 1, y: 2, positive: true }], image: 'data:image/png;base64,iVBORw0KGgo=', imageId: 'a"b\\c' });
    expect(imageSpan(Buffer.from(text))).toBeDefined();
    expect(parseMeteredJson(Buffer.from(text))).toStrictEqual(JSON.parse(text));
  });

  it('equals JSON.parse on generated bodies, most of them through the fast path', () => {
    let fast = 0;
    fc.assert(
      fc.property(body, (text) => {
        if (imageSpan(Buffer.from(text))) fast++;
        agreesWithJsonParse(text);
      }),
      { numRuns: 2000 },
    );
    expect(fast).toBeGreaterThan(600); // about half: the other half have a non-string image
  });

  it('equals JSON.parse (value or SyntaxError) on generated bodies cut, spliced or with a byte flipped', () => {
    const mangled = fc
      .tuple(body, fc.nat(), fc.nat(), fc.constantFrom('"', '\\', '{', '}', ',', ':', ']', '[', ' ', 'x', '\u00e9', '"image":"QQ==",'))
      .chain(([text, a, b, insert]) =>
        fc.constantFrom(
          text.slice(0, a % (text.length + 1)),
          text.slice(0, a % (text.length + 1)) + insert + text.slice(a % (text.length + 1)),
          text.slice(0, a % (text.length + 1)) + text.slice((a % (text.length + 1)) + 1 + (b % 3)),
        ),
      );
    fc.assert(fc.property(mangled, agreesWithJsonParse), { numRuns: 4000 });
  });

  it.each([
    ['a second image key (JSON.parse keeps the last)', '{"image":"QUFB","image":"QkJC"}'],
    ['an escaped key that spells image', '{"\\u0069mage":"QUFB","image":"QkJC"}'],
    ['an escape inside the image', '{"image":"QU\\/B"}'],
    ['a non-ASCII image', '{"image":"Q\u00e9FB"}'],
    ['an image that is not a string', '{"image":12}'],
    ['an array body', '["image","QUFB"]'],
    ['trailing garbage', '{"image":"QUFB"} x'],
    ['a byte-order mark', '\ufeff{"image":"QUFB"}'],
    ['an unterminated image', '{"image":"QUFB'],
    ['a quote inside a key before the image', '{"a\\"":1,"image":"QUFB"}'],
  ])('agrees with JSON.parse on %s', (_name, text) => agreesWithJsonParse(text));

  it('leaves a raw control character inside the image to the Base64 check (the one accepted difference)', () => {
    const text = '{"image":"QU\u0001FB"}';
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
    expect(parseMeteredJson(Buffer.from(text))).toEqual({ image: 'QU\u0001FB' });
  });
});
