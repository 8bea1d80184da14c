/**
 * fast-check generators of hostile HTTP requests, each carrying its own oracle:
 * `mustReject` is true when the request is invalid by the specification (the server must refuse it and
 * charge nothing); otherwise the server may accept it. The generators build a JS value plus a validity
 * verdict component by component, then optionally break the bytes of the serialised body.
 */
import fc from 'fast-check';
import { LIMITS } from '../../../src/contract/limits';
import { NOT_IMAGES, corruptPng, truncatedPng } from '../harness/hostileImages';

/** A component value and whether the spec allows it. */
export interface Judged<T = unknown> {
  readonly value: T;
  readonly valid: boolean;
  readonly note: string;
}
const ok = <T>(value: T, note: string): Judged<T> => ({ value, valid: true, note });
const bad = <T>(value: T, note: string): Judged<T> => ({ value, valid: false, note });

/** Marker for a field that is left out of the object. */
export const ABSENT = Symbol('absent');

export type AuthChoice =
  | { kind: 'valid' }
  | { kind: 'missing' }
  | { kind: 'header'; value: string; note: string };

export interface FuzzRequest {
  readonly family: 'pvs' | 'segment' | 'account' | 'signup' | 'login' | 'api-keys' | 'purchase';
  readonly method: string;
  readonly path: string;
  /** Raw body bytes (already serialised/broken), or undefined for none. */
  readonly body?: string | Buffer;
  /** null = no Content-Type header at all. */
  readonly contentType: string | null;
  readonly headers: Record<string, string>;
  readonly auth: AuthChoice;
  /** Invalid by the spec: must be refused (4xx other than 402), never charged. */
  readonly mustReject: boolean;
  /** When the refusal is certain to be a specific status (e.g. 401 for a bad key on a valid body). */
  readonly exactStatus?: number;
  readonly notes: string[];
}

// ---------------------------------------------------------------- numbers and coordinates

/** Finite and >= 0 is valid; JSON cannot carry NaN/Infinity, so those travel as raw tokens (see `rawNumber`). */
/** A subnormal float (between 0 and 2.2e-308) is a degenerate prompt: 400 `degenerate-prompt`. */
const subnormal = (v: number) => v !== 0 && Math.abs(v) < 2.2250738585072014e-308;

const coordinate: fc.Arbitrary<Judged> = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 640 }).map((v) => ok(v, 'coord-int')) },
  {
    weight: 3,
    arbitrary: fc.double({ min: 0, max: 640, noNaN: true }).map((v) => (subnormal(v) ? bad(v, 'coord-subnormal') : ok(Object.is(v, -0) ? 0 : v, 'coord-frac'))),
  },
  { weight: 2, arbitrary: fc.double({ min: 641, max: 1e300, noNaN: true, noDefaultInfinity: true }).map((v) => ok(v, 'coord-huge')) },
  { weight: 1, arbitrary: fc.constant(bad(Number.MIN_VALUE, 'coord-subnormal')) },
  { weight: 3, arbitrary: fc.double({ min: -1e300, max: -Number.MIN_VALUE, noNaN: true }).map((v) => bad(v, 'coord-negative')) },
  { weight: 2, arbitrary: fc.constantFrom('NaN', 'Infinity', '-Infinity', '1e999', '-1e999').map((t) => bad(rawNumber(t), `coord-raw-${t}`)) },
  { weight: 2, arbitrary: fc.constantFrom<unknown>('5', '', null, true, [], {}, [1, 2]).map((v) => bad(v, `coord-type-${JSON.stringify(v)}`)) },
);

/** Holds a token spliced into the JSON text verbatim (NaN, Infinity, 1e999 …). */
export class RawToken {
  constructor(readonly text: string) {}
}
const rawNumber = (text: string) => new RawToken(text);

// ---------------------------------------------------------------- images

export interface ImagePool {
  /** Base64 (no prefix) of small real images the engine can segment, with a stable imageId for each. */
  readonly valid: ReadonlyArray<{ base64: string; mediaType: string; imageId: string; width: number; height: number }>;
}

/** A judged image; `size` (not sent) is that of a valid one: prompts beside it are a 400. */
type JudgedImage = Judged<{ image: unknown; imageId?: unknown; size?: { width: number; height: number } }>;

function imageArbitrary(pool: ImagePool, validWeight = 8): fc.Arbitrary<JudgedImage> {
  const validImage = fc.constantFrom(...pool.valid).chain((entry) => {
    const size = { width: entry.width, height: entry.height };
    return fc.oneof(
      fc.constant(ok({ image: entry.base64, imageId: entry.imageId, size }, 'image-valid')),
      fc.constant(ok({ image: `data:${entry.mediaType};base64,${entry.base64}`, imageId: entry.imageId, size }, 'image-datauri')),
      fc.constant(ok({ image: entry.base64, size }, 'image-valid-no-id')),
    );
  });
  const b64 = (bytes: Buffer) => bytes.toString('base64');
  const notImage = fc
    .constantFrom(...Object.entries(NOT_IMAGES), ['truncatedPng', truncatedPng()] as const, ['corruptPng', corruptPng()] as const)
    .map(([name, bytes]) => bad({ image: b64(bytes as Buffer) }, `image-not-image-${name}`));
  const brokenBase64 = fc.oneof(
    fc.constantFrom('!!!!', '====', 'abc', 'a', '%%%%%%%%', 'iVBORw0KGgo', 'data:image/png;base64,', 'data:image/png;base64,@@@@', 'data:;base64,AAAA', 'data:image/png,AAAA').map((s) =>
      bad({ image: s }, `image-broken-base64-${s.slice(0, 12)}`),
    ),
    fc.string({ minLength: 1, maxLength: 200 }).map((s) => bad({ image: s }, 'image-random-string')),
    fc.uint8Array({ minLength: 1, maxLength: 300 }).map((bytes) => bad({ image: b64(Buffer.from(bytes)) }, 'image-random-bytes')),
  );
  const wrongType = fc
    .constantFrom<unknown>(null, 0, 1.5, true, [], ['AAAA'], {}, { data: 'AAAA' }, '')
    .map((v) => bad({ image: v }, `image-type-${JSON.stringify(v)}`));
  return fc.oneof(
    { weight: validWeight, arbitrary: validImage },
    { weight: 3, arbitrary: notImage },
    { weight: 3, arbitrary: brokenBase64 },
    { weight: 2, arbitrary: wrongType },
    { weight: 1, arbitrary: fc.constant(bad({ image: ABSENT }, 'image-missing')) },
  );
}

/** Oversized images are expensive to build and send; they come from their own small arbitrary. */
export const oversizedImage = fc
  .constantFrom(LIMITS.imageMaxChars + 1, LIMITS.imageMaxChars + 4, LIMITS.imageMaxChars * 2)
  .map((length) => 'A'.repeat(length));

// ---------------------------------------------------------------- PVS bodies

const positiveFlag: fc.Arbitrary<Judged> = fc.oneof(
  { weight: 5, arbitrary: fc.boolean().map((v) => ok(v, `positive-${v}`)) },
  { weight: 3, arbitrary: fc.constant(ok(ABSENT, 'positive-default')) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>('true', 1, 0, null, 'yes').map((v) => bad(v, `positive-type-${JSON.stringify(v)}`)) },
);

const point: fc.Arbitrary<Judged> = fc.tuple(coordinate, coordinate, positiveFlag).map(([x, y, positive]) => {
  const value: Record<string, unknown> = { x: x.value, y: y.value };
  if (positive.value !== ABSENT) value.positive = positive.value;
  const isPositive = positive.value === ABSENT || positive.value === true;
  return { value, valid: x.valid && y.valid && positive.valid, note: `point(${x.note},${y.note},${positive.note})`, isPositive } as Judged & { isPositive: boolean };
});

const malformedPoint: fc.Arbitrary<Judged> = fc
  .constantFrom<unknown>(null, 3, 'p', [1, 2], { x: 1 }, { y: 1 }, {}, { x: 1, y: 2, positive: 'no' })
  .map((v) => bad(v, `point-malformed-${JSON.stringify(v)}`));

interface JudgedPoints extends Judged {
  readonly hasPositive: boolean;
}

const points: fc.Arbitrary<JudgedPoints> = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.array(fc.oneof({ weight: 12, arbitrary: point }, { weight: 1, arbitrary: malformedPoint }), { minLength: 0, maxLength: 8 }).map((list) => ({
      value: list.map((p) => p.value),
      valid: list.every((p) => p.valid),
      hasPositive: list.some((p) => p.valid && (p as Judged & { isPositive?: boolean }).isPositive === true),
      note: `points[${list.length}]:${list.map((p) => p.note).join('|')}`,
    })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(LIMITS.pointsMax, LIMITS.pointsMax + 1, 5_000).map((n) => ({
      value: Array.from({ length: n }, (_, i) => ({ x: i % 64, y: (i * 7) % 64, positive: i % 3 !== 0 })),
      valid: n <= LIMITS.pointsMax,
      hasPositive: true,
      note: `points-count-${n}`,
    })),
  },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, {}, 'points', 7).map((v) => ({ value: v, valid: false, hasPositive: false, note: `points-type-${JSON.stringify(v)}` })) },
);

const box: fc.Arbitrary<Judged> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.tuple(coordinate, coordinate, coordinate, coordinate).map(([x, y, w, h]) => {
      // A box under one pixel is a degenerate prompt (400), refused like a malformed one.
      const positiveSize = (j: Judged) => j.valid && typeof j.value === 'number' && j.value >= 1;
      return {
        value: { x: x.value, y: y.value, width: w.value, height: h.value },
        valid: x.valid && y.valid && positiveSize(w) && positiveSize(h),
        note: `box(${x.note},${y.note},${w.note},${h.note})`,
      };
    }),
  },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, [], [1, 2, 3, 4], { x: 1, y: 1 }, { x: 1, y: 1, width: 0, height: 5 }, 'box').map((v) => bad(v, `box-malformed-${JSON.stringify(v)}`)) },
);

const multimask: fc.Arbitrary<Judged> = fc.oneof(
  { weight: 4, arbitrary: fc.boolean().map((v) => ok(v, `multimask-${v}`)) },
  { weight: 4, arbitrary: fc.constant(ok(ABSENT, 'multimask-default')) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>('true', 'false', 1, 0, null).map((v) => bad(v, `multimask-type-${JSON.stringify(v)}`)) },
);

const explicitImageId: fc.Arbitrary<Judged> = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom<unknown>('', 5, null, [], {}).map((v) => bad(v, `imageId-type-${JSON.stringify(v)}`)) },
  { weight: 1, arbitrary: fc.constant(bad('x'.repeat(257), 'imageId-too-long')) },
  { weight: 1, arbitrary: fc.constantFrom('\u0000', 'a\u0000b', '../../etc/passwd', '\ud800', 'x'.repeat(256)).map((v) => ok(v, `imageId-odd-${JSON.stringify(v).slice(0, 12)}`)) },
);

export function pvsBody(pool: ImagePool, validImageWeight = 8): fc.Arbitrary<Judged<Record<string, unknown>>> {
  return fc
    .record({
      image: imageArbitrary(pool, validImageWeight),
      points: fc.option(points, { nil: undefined, freq: 4 }),
      box: fc.option(box, { nil: undefined, freq: 2 }),
      multimask,
      imageIdOverride: fc.option(explicitImageId, { nil: undefined, freq: 12 }),
      extra: fc.option(fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }), { nil: undefined, freq: 8 }),
    })
    .map(({ image, points: pts, box: bx, multimask: mm, imageIdOverride, extra }) => {
      // Extra keys first so the real fields win (an extra key named "image" must not replace the image).
      const body: Record<string, unknown> = { ...(extra ?? {}) };
      delete body.__proto__;
      if (image.value.image !== ABSENT) body.image = image.value.image;
      else delete body.image;
      const imageId = imageIdOverride ?? (image.value.imageId !== undefined ? ok(image.value.imageId, 'imageId-pool') : undefined);
      if (imageId) body.imageId = imageId.value;
      else delete body.imageId;
      if (pts) body.points = pts.value;
      else delete body.points;
      if (bx) body.box = bx.value;
      else delete body.box;
      if (mm.value !== ABSENT) body.multimaskOutput = mm.value;
      else delete body.multimaskOutput;
      const extraValid = !extra || Object.keys(extra).every((k) => !['image', 'imageId', 'points', 'box', 'multimaskOutput'].includes(k));
      const promptPresent = (bx !== undefined) || (pts?.hasPositive ?? false);
      // Points and the box centre must lie on the image (0 ≤ x ≤ width, 0 ≤ y ≤ height), else 400.
      const size = image.value.size;
      const onImage = (p: unknown) => {
        const { x, y } = (p ?? {}) as { x?: unknown; y?: unknown };
        return !size || typeof x !== 'number' || typeof y !== 'number' || (x <= size.width && y <= size.height);
      };
      const promptsOnImage = (!Array.isArray(pts?.value) || pts.value.every(onImage)) && (!bx || onImage(bx.value));
      const valid =
        image.valid && (imageId?.valid ?? true) && (pts?.valid ?? true) && (bx?.valid ?? true) && mm.valid && promptPresent && extraValid && promptsOnImage;
      const notes = [image.note, imageId?.note, pts?.note, bx?.note, mm.note, promptPresent ? 'prompt-present' : 'no-positive-prompt', promptsOnImage ? '' : 'prompt-beside-image'];
      return { value: body, valid, note: notes.filter(Boolean).join(' ') };
    });
}

// ---------------------------------------------------------------- segment bodies

const promptText: fc.Arbitrary<Judged> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('dog', 'cat', 'rocket', 'people', 'coffee cup', 'the thing on the left').map((v) => ok(v, 'prompt-word')) },
  { weight: 3, arbitrary: fc.string({ minLength: 1, maxLength: 40, unit: 'binary' }).map((v) => ok(v, 'prompt-unicode')) },
  { weight: 1, arbitrary: fc.constant(ok('p'.repeat(LIMITS.promptMaxChars), 'prompt-500')) },
  { weight: 1, arbitrary: fc.constant(bad('p'.repeat(LIMITS.promptMaxChars + 1), 'prompt-501')) },
  { weight: 1, arbitrary: fc.constant(bad('', 'prompt-empty')) },
  { weight: 1, arbitrary: fc.constantFrom('\ud800', '\u0000', 'dog\u0000cat').map((v) => ok(v, `prompt-odd-${JSON.stringify(v)}`)) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, 1, true, ['dog'], { text: 'dog' }).map((v) => bad(v, `prompt-type-${JSON.stringify(v)}`)) },
);

const prompts: fc.Arbitrary<Judged> = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.array(promptText, { minLength: 0, maxLength: 4 }).map((list) => ({
      value: list.map((p) => p.value),
      valid: list.length >= 1 && list.every((p) => p.valid),
      note: `prompts[${list.length}]`,
    })),
  },
  { weight: 1, arbitrary: fc.constantFrom(LIMITS.promptsMax, LIMITS.promptsMax + 1, 100).map((n) => ({ value: Array.from({ length: n }, (_, i) => `dog ${i}`), valid: n <= LIMITS.promptsMax, note: `prompts-count-${n}` })) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, 'dog', {}, 3).map((v) => bad(v, `prompts-type-${JSON.stringify(v)}`)) },
  { weight: 1, arbitrary: fc.constant(bad(ABSENT, 'prompts-missing')) },
);

export function segmentBody(pool: ImagePool, validImageWeight = 8): fc.Arbitrary<Judged<Record<string, unknown>>> {
  return fc.tuple(imageArbitrary(pool, validImageWeight), prompts).map(([image, ps]) => {
    const body: Record<string, unknown> = {};
    if (image.value.image !== ABSENT) body.image = image.value.image;
    if (ps.value !== ABSENT) body.prompts = ps.value;
    return { value: body, valid: image.valid && ps.valid, note: `${image.note} ${ps.note}` };
  });
}

// ---------------------------------------------------------------- serialisation and byte-level breakage

export function serialise(value: unknown): string {
  const tokens: string[] = [];
  const json = JSON.stringify(value, (_key, v) => {
    if (v instanceof RawToken) {
      tokens.push(v.text);
      return `__RAW_${tokens.length - 1}__`;
    }
    return v;
  });
  return json.replace(/"__RAW_(\d+)__"/g, (_m, i) => tokens[Number(i)]);
}

/** A raw token makes the text invalid JSON, except 1e999 which parses to Infinity (a finite-check must catch it). */
export function containsRawToken(value: unknown): boolean {
  return serialise(value) !== JSON.stringify(value, (_k, v) => (v instanceof RawToken ? null : v));
}

export interface BodyBytes {
  readonly body: string | Buffer | undefined;
  readonly contentType: string | null;
  /** false when the breakage makes the request invalid whatever the JSON value was. */
  readonly intact: boolean;
  readonly note: string;
}

export function bodyBytes(json: string): fc.Arbitrary<BodyBytes> {
  return fc.oneof(
    { weight: 30, arbitrary: fc.constant({ body: json, contentType: 'application/json', intact: true, note: 'json' }) },
    { weight: 2, arbitrary: fc.constant({ body: json, contentType: 'application/json; charset=utf-8', intact: true, note: 'json-charset' }) },
    { weight: 2, arbitrary: fc.nat({ max: Math.max(0, json.length - 1) }).map((cut) => ({ body: json.slice(0, cut), contentType: 'application/json', intact: false, note: `truncated@${cut}` })) },
    { weight: 1, arbitrary: fc.constant({ body: json + '}', contentType: 'application/json', intact: false, note: 'trailing-brace' }) },
    // RFC 8259 lets a parser ignore a BOM: either answer is fine, so it does not decide validity.
    { weight: 1, arbitrary: fc.constant({ body: `\ufeff${json}`, contentType: 'application/json', intact: true, note: 'bom' }) },
    { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml').map((ct) => ({ body: json, contentType: ct, intact: false, note: `content-type:${ct}` })) },
    { weight: 1, arbitrary: fc.constant({ body: json, contentType: null, intact: false, note: 'no-content-type' }) },
    {
      weight: 2,
      arbitrary: fc.constantFrom('', 'null', '[]', '"image"', '42', 'true', '{', '{"image":', '{"a":1,,}', "{'image':'x'}", 'NaN', '[{"image":"x"}]', '{"image":"x"}{"image":"y"}').map((text) => ({
        body: text,
        contentType: 'application/json',
        intact: false,
        note: `raw:${text.slice(0, 16)}`,
      })),
    },
    { weight: 1, arbitrary: fc.constant({ body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), contentType: 'application/json', intact: false, note: 'invalid-utf8' }) },
    { weight: 1, arbitrary: fc.nat({ max: 2_000 }).map((depth) => ({ body: '['.repeat(depth + 5_000) + ']'.repeat(depth + 5_000), contentType: 'application/json', intact: false, note: 'deep-nesting' })) },
  );
}

// ---------------------------------------------------------------- headers

export interface JudgedHeaders {
  readonly headers: Record<string, string>;
  readonly valid: boolean;
  readonly hasIdempotencyKey: boolean;
  readonly note: string;
}

const keyChars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-'.split('');
export const validIdempotencyKey = fc.array(fc.constantFrom(...keyChars), { minLength: 1, maxLength: 128 }).map((chars) => chars.join(''));

/** Invalid keys that survive HTTP (latin-1, no CR/LF, no surrounding whitespace that HTTP would trim). */
const invalidIdempotencyKey = fc.oneof(
  fc.constant(''),
  fc.array(fc.constantFrom(...keyChars), { minLength: 129, maxLength: 400 }).map((c) => c.join('')),
  fc
    .tuple(validIdempotencyKey, fc.constantFrom(' ', '/', '*', ',', ';', '=', '"', '\\', '\u00e9', '\u00ff', '\t', '+', '%', '@', '!'), validIdempotencyKey)
    .map(([a, c, b]) => `${a}${c}${b}`.slice(0, 128)),
);

export const headerArbitrary: fc.Arbitrary<JudgedHeaders> = fc
  .record({
    key: fc.oneof(
      { weight: 4, arbitrary: fc.constant<Judged<string | undefined>>(ok(undefined, 'no-key')) },
      { weight: 4, arbitrary: validIdempotencyKey.map((k) => ok<string | undefined>(k, 'key-valid')) },
      { weight: 3, arbitrary: invalidIdempotencyKey.map((k) => bad<string | undefined>(k, `key-invalid(${k.length})`)) },
    ),
    force: fc.option(fc.constantFrom('true', 'false', 'TRUE', 'False', '1', '0', 'yes', '', 'true, true', 'x'.repeat(300)), { nil: undefined, freq: 3 }),
    junk: fc.option(
      fc.constantFrom<[string, string]>(['x-forwarded-for', '1.2.3.4, 5.6.7.8'], ['accept', 'text/html'], ['accept-encoding', 'br, gzip, zstd'], ['x-service-request-id', 'spoofed-id'], ['content-encoding', 'gzip']),
      { nil: undefined, freq: 5 },
    ),
  })
  .map(({ key, force, junk }) => {
    const headers: Record<string, string> = {};
    if (key.value !== undefined) headers['idempotency-key'] = key.value;
    if (force !== undefined) headers['x-force-refresh'] = force;
    // X-Force-Refresh is `true` or `false` (the server documents any other value as 400 invalid-header).
    const valid = key.valid && (force === undefined || ['true', 'false'].includes(force.toLowerCase()));
    // Junk headers never decide validity (a server may ignore an unsupported Content-Encoding or refuse it).
    if (junk) headers[junk[0]] = junk[1];
    return { headers, valid, hasIdempotencyKey: key.value !== undefined, note: `${key.note} force=${force ?? '-'} ${junk?.[0] ?? ''}` };
  });

export const authArbitrary: fc.Arbitrary<AuthChoice> = fc.oneof(
  { weight: 12, arbitrary: fc.constant<AuthChoice>({ kind: 'valid' }) },
  { weight: 1, arbitrary: fc.constant<AuthChoice>({ kind: 'missing' }) },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom('Bearer', 'Bearer ', 'Bearer mw_live_0000000000000000', 'Basic dXNlcjpwYXNz', 'bearer', 'Token abc', 'Bearer ' + 'k'.repeat(6_000), 'Bearer \u00ff\u00fe', 'Bearer a b c', 'Bearer null')
      .map<AuthChoice>((value) => ({ kind: 'header', value, note: `auth:${value.slice(0, 24)}` })),
  },
  { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 60 }).filter((s) => /^[\x21-\x7e][\x20-\x7e]*[\x21-\x7e]$/.test(s)).map<AuthChoice>((s) => ({ kind: 'header', value: `Bearer ${s}`, note: 'auth:random' })) },
);
