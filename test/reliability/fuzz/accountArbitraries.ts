/**
 * Hostile requests for the account endpoints (sign-up, login, logout, account, API keys, purchases),
 * each with its oracle. Credentials are symbolic here and filled in by the sender.
 */
import fc from 'fast-check';
import { bodyBytes, serialise, type BodyBytes } from './arbitraries';

export type Credential =
  | 'session+csrf' // a valid session cookie and the matching X-CSRF-Token
  | 'session-no-csrf'
  | 'session-wrong-csrf'
  | 'garbage-cookie'
  | 'bearer' // a valid API key
  | 'none';

export interface AccountCase {
  readonly method: string;
  /** Path with `{otherKeyId}` / `{ownKeyId}` placeholders filled in by the sender. */
  readonly path: string;
  readonly body: BodyBytes | undefined;
  readonly credential: Credential;
  readonly mustReject: boolean;
  readonly exactStatus?: number;
  readonly note: string;
}

let uniqueCounter = 0;
const uniqueEmail = () => `fz-${Date.now().toString(36)}-${uniqueCounter++}@example.test`;

/** Email values with a verdict: true = valid, false = invalid, undefined = up to the validator. */
const email: fc.Arbitrary<{ value: unknown; valid: boolean | undefined; fresh: boolean }> = fc.oneof(
  { weight: 1, arbitrary: fc.constant(null).map(() => ({ value: uniqueEmail(), valid: true as const, fresh: true })) },
  { weight: 3, arbitrary: fc.constant({ value: '{existingEmail}', valid: true as const, fresh: false }) },
  {
    weight: 5,
    arbitrary: fc.constantFrom<unknown>('', 'no-at-sign', 'a@', '@b.c', 'a b@c.d', `${'x'.repeat(250)}@example.test`, 42, null, true, ['a@b.c'], { email: 'a@b.c' }).map((value) => ({ value, valid: false as const, fresh: false })),
  },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }).map((value) => ({ value, valid: undefined, fresh: false })) },
);

const password: fc.Arbitrary<{ value: unknown; valid: boolean }> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ minLength: 8, maxLength: 64 }).map((value) => ({ value, valid: true })) },
  { weight: 2, arbitrary: fc.string({ maxLength: 7 }).map((value) => ({ value, valid: false })) },
  { weight: 1, arbitrary: fc.constant({ value: 'p'.repeat(257), valid: false }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, 12345678, true, ['password1'], {}).map((value) => ({ value, valid: false })) },
);

/** Sign-up and login bodies; valid-shaped ones cost an Argon2 hash, so they are kept rare. */
function credentialsBody(route: 'signup' | 'login') {
  return fc
    .record({ email, password, drop: fc.integer({ min: 0, max: 19 }) })
    .chain(({ email: e, password: p, drop }) => {
      const body: Record<string, unknown> = {};
      const noEmail = drop === 0;
      const noPassword = drop === 1;
      if (!noEmail) body.email = e.value;
      if (!noPassword) body.password = p.value;
      const shapeValid = !noEmail && !noPassword && p.valid && e.valid !== false;
      return bodyBytes(serialise(body)).map((bytes) => {
        const mustReject = !bytes.intact || !shapeValid;
        let exactStatus: number | undefined;
        if (bytes.intact && shapeValid && e.valid === true && route === 'signup') exactStatus = e.fresh ? 201 : 409;
        if (bytes.intact && shapeValid && e.valid === true && route === 'login') exactStatus = 401; // random password
        return {
          method: 'POST',
          path: `/api/v1/auth/${route}`,
          body: bytes,
          credential: 'none' as Credential,
          mustReject: mustReject || route === 'login',
          exactStatus: mustReject ? undefined : exactStatus,
          note: `${route} ${bytes.note} email=${JSON.stringify(e.value).slice(0, 30)} pw-valid=${p.valid}`,
        };
      });
    });
}

const credential = fc.constantFrom<Credential>('session+csrf', 'session+csrf', 'session-no-csrf', 'session-wrong-csrf', 'garbage-cookie', 'bearer', 'none');

const keyId = fc.oneof(
  fc.constantFrom('{otherKeyId}', '{otherKeyId}', 'key_00000000000000000000000000', '', '..', '%2e%2e', 'a%2Fb', '%00', 'null', '1', '%F0%9F%92%A5'),
  fc.string({ minLength: 1, maxLength: 30 }).map((s) => encodeURIComponent(s)),
  fc.constant('k'.repeat(3_000)),
);

/** What a credential yields on a route: 'ok' (authorised), or the status of the refusal. */
function authOutcome(cred: Credential, mode: 'session' | 'any', unsafe: boolean): 'ok' | 401 | 403 {
  if (cred === 'none' || cred === 'garbage-cookie') return 401;
  if (cred === 'bearer') return mode === 'session' ? 401 : 'ok';
  if (cred === 'session+csrf') return 'ok';
  return unsafe ? 403 : 'ok';
}

function routed(method: string, path: string, mode: 'session' | 'any', cred: Credential, body: BodyBytes | undefined, bodyValid: boolean, okStatus: number | undefined, note: string): AccountCase {
  const auth = authOutcome(cred, mode, method !== 'GET');
  if (auth !== 'ok') return { method, path, body, credential: cred, mustReject: true, exactStatus: body && !body.intact ? undefined : auth, note: `${note} ${cred}` };
  return { method, path, body, credential: cred, mustReject: !bodyValid, exactStatus: bodyValid ? okStatus : undefined, note: `${note} ${cred}` };
}

const junkJson = fc.oneof(fc.constant({}), fc.jsonValue({ maxDepth: 2 }));

export const accountCase: fc.Arbitrary<AccountCase> = fc.oneof(
  { weight: 4, arbitrary: credentialsBody('signup') },
  { weight: 2, arbitrary: credentialsBody('login') },
  {
    weight: 2,
    // Logout only with broken credentials: a real logout would end the session the other cases use.
    arbitrary: fc.constantFrom<Credential>('session-no-csrf', 'session-wrong-csrf', 'garbage-cookie', 'bearer', 'none').map((cred) =>
      routed('POST', '/api/v1/auth/logout', 'session', cred, undefined, true, 204, 'logout'),
    ),
  },
  { weight: 3, arbitrary: credential.map((cred) => routed('GET', '/api/v1/account', 'any', cred, undefined, true, 200, 'account')) },
  { weight: 2, arbitrary: credential.map((cred) => routed('GET', '/api/v1/api-keys', 'session', cred, undefined, true, 200, 'list-keys')) },
  {
    weight: 3,
    arbitrary: fc.tuple(credential, junkJson.chain((v) => bodyBytes(serialise(v)))).map(([cred, body]) =>
      // The body of key creation is ignored; a broken one may be refused (400/415) or ignored.
      ({ ...routed('POST', '/api/v1/api-keys', 'session', cred, body, true, undefined, `create-key ${body.note}`), mustReject: authOutcome(cred, 'session', true) !== 'ok' }),
    ),
  },
  {
    weight: 3,
    arbitrary: fc.tuple(credential, keyId).map(([cred, id]) => {
      const c = routed('POST', `/api/v1/api-keys/${id}/rotate`, 'session', cred, { body: '{}', contentType: 'application/json', intact: true, note: '' }, true, 404, `rotate ${id.slice(0, 20)}`);
      // Someone else's key, a made-up id or a path that does not route: never a 201.
      // '', '..' and encoded slashes or dots change the path itself (clients normalise '..'): any refusal will do.
      // An id longer than any issued one is refused by the router (404) before authentication.
      const reroutes = id === '' || id.includes('%2F') || id === '..' || id === '%2e%2e' || id.length > 100;
      return { ...c, mustReject: true, exactStatus: reroutes ? undefined : c.exactStatus };
    }),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(credential, keyId).map(([cred, id]) => {
      const c = routed('DELETE', `/api/v1/api-keys/${id}`, 'session', cred, undefined, true, 404, `revoke ${id.slice(0, 20)}`);
      return { ...c, mustReject: true, exactStatus: undefined };
    }),
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        credential,
        fc.oneof(
          { weight: 1, arbitrary: fc.constantFrom('lite', 'standard', 'pro').map((packageId) => ({ value: { packageId } as unknown, valid: true })) },
          { weight: 4, arbitrary: fc.constantFrom<unknown>({}, { packageId: 'free' }, { packageId: 'LITE' }, { packageId: null }, { packageId: ['pro'] }, [], 'pro', { packageId: 'pro', credits: 1e9 }).map((value) => ({ value, valid: false })) },
        ),
      )
      .chain(([cred, body]) =>
        bodyBytes(serialise(body.value)).map((bytes) => {
          // Extra members are stripped, so { packageId: 'pro', credits: 1e9 } buys exactly the Pro package.
          const valid = bytes.intact && (body.valid || JSON.stringify(body.value) === JSON.stringify({ packageId: 'pro', credits: 1e9 }));
          return routed('POST', '/api/v1/credit-purchases', 'any', cred, bytes, valid, 201, `purchase ${bytes.note} ${JSON.stringify(body.value).slice(0, 30)}`);
        }),
      ),
  },
  { weight: 1, arbitrary: fc.constant<AccountCase>({ method: 'GET', path: '/api/v1/credit-packages', body: undefined, credential: 'none', mustReject: false, exactStatus: 200, note: 'packages' }) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(['PUT', '/api/v1/account'], ['PATCH', '/api/v1/pvs'], ['GET', '/api/v1/pvs'], ['GET', '/api/v2/pvs'], ['POST', '/api/v1/../v1/pvs'], ['GET', '/api/v1/%00'], ['POST', '/api/v1/auth/signup/extra'], ['GET', '/api/v1/%E0%A4%A'], ['DELETE', '/api/v1/api-keys/%'])
      .map(([method, path]) => ({ method, path, body: undefined, credential: 'bearer' as Credential, mustReject: true, note: `route ${method} ${path}` })),
  },
);
