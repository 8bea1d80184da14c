/**
 * Login throttling that cannot be turned against the owner, over real HTTP against a real
 * database: wrong passwords from an attacker's address do not keep the owner (at another address)
 * out; an address is throttled over all accounts; an account has a much higher ceiling over all
 * addresses; and two server processes on one database share the counts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_AUTH_THROTTLES } from './domain/authThrottles';
import { DATABASES, expectProblem, NO_INFERENCE, parseSetCookies, signupUser, startTestServer, type TestServer, type TestUser } from '../../test/support/server/harness';

const ATTACKER = '203.0.113.66';
const OWNER = '198.51.100.7';

describe.each(DATABASES)('login throttling (%s)', (dbKind) => {
  const servers: TestServer[] = [];
  const start = async (options: Partial<Parameters<typeof startTestServer>[0]> = {}) => {
    const server = await startTestServer({ db: dbKind, backend: NO_INFERENCE, config: { trustProxy: true, authThrottles: { ...DEFAULT_AUTH_THROTTLES, signupFreePerAddress: 1000 } }, ...options });
    servers.push(server);
    server.clock.freeze(); // the waits are the throttle's, not the time Argon2 takes here
    return server;
  };
  afterEach(async () => {
    // The second process first: the first owns the database.
    for (const server of servers.reverse()) await server.cleanup();
    servers.length = 0;
  });
  const login = (server: TestServer, user: TestUser, password: string, from: string) =>
    server.fetch('/api/v1/auth/login', { method: 'POST', headers: { 'x-forwarded-for': from }, json: { email: user.email, password } });

  it("an attacker's wrong passwords block the attacker, not the owner logging in from elsewhere", async () => {
    const server = await start();
    const owner = await signupUser(server, false);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await login(server, owner, 'not-the-password', ATTACKER)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    // Even the right password waits its turn from the attacker's address...
    await expectProblem(await login(server, owner, owner.password, ATTACKER), 429, 'rate-limited');
    // ...but the owner's own address is not held.
    expect((await login(server, owner, owner.password, OWNER)).status).toBe(200);
  });

  it('many accounts tried from one address: the address is throttled for every account', async () => {
    const server = await start();
    const statuses: number[] = [];
    for (let i = 0; i < DEFAULT_AUTH_THROTTLES.loginFreePerAddress + 2; i++) {
      const stranger = { email: `nobody-${i}@example.test` } as TestUser;
      statuses.push((await login(server, stranger, 'guessing-123', ATTACKER)).status);
    }
    expect(statuses.filter((s) => s === 401)).toHaveLength(DEFAULT_AUTH_THROTTLES.loginFreePerAddress);
    expect(statuses.slice(-2)).toEqual([429, 429]);
  });

  it('one account tried from many addresses: a ceiling far above the per-address count, then a wait', async () => {
    const ceiling = 12;
    const server = await start({ config: { trustProxy: true, authThrottles: { ...DEFAULT_AUTH_THROTTLES, loginFreePerAccount: ceiling, signupFreePerAddress: 1000 } } });
    const owner = await signupUser(server, false);
    const statuses: number[] = [];
    // Three guesses from each of five addresses: no address reaches its own five.
    for (let a = 0; a < 5; a++) for (let i = 0; i < 3; i++) statuses.push((await login(server, owner, 'nope-nope', `192.0.2.${a + 1}`)).status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(ceiling);
    expect(statuses.slice(ceiling)).toEqual([429, 429, 429]);
    // The wait ends; the owner's success clears the account's count.
    server.clock.advance(60_000);
    expect((await login(server, owner, owner.password, OWNER)).status).toBe(200);
    expect((await login(server, owner, 'nope-nope', '192.0.2.99')).status).toBe(401);
  });

  it("a flood from many addresses holds strangers back, never the owner's device or the owner's address", async () => {
    const server = await start();
    const owner = await signupUser(server, false);
    const loginWith = (password: string, from: string, cookie?: string) =>
      server.fetch('/api/v1/auth/login', { method: 'POST', headers: { 'x-forwarded-for': from, ...(cookie ? { cookie } : {}) }, json: { email: owner.email, password } });
    // The owner logged in once, from home, and the device kept its cookie.
    const first = await loginWith(owner.password, OWNER);
    expect(first.status).toBe(200);
    const device = parseSetCookies(first).mw_device;
    expect(device.attributes).toMatch(/HttpOnly/i);
    expect(device.attributes).toMatch(/Path=\/api\/v1\/auth/i);
    // 100 wrong passwords from 20 addresses, then one every half second from ever new addresses.
    const flood = async (subnet: number) => {
      for (let a = 0; a < 20; a++) for (let i = 0; i < 5; i++) expect((await loginWith('wrong-wrong', `10.${subnet}.0.${a + 1}`)).status).toBe(401);
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) {
        server.clock.advance(500);
        statuses.push((await loginWith('wrong-wrong', `10.${subnet}.1.${i + 1}`)).status);
      }
      // The account's ceiling holds the flood to its doubling waits.
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(5);
    };
    await flood(1);
    // A stranger with the right password is held back with the flood (the ceiling stands against guessing);
    // a device cookie is the account's own: another account's, or a made-up one, is no way in.
    await expectProblem(await loginWith(owner.password, '198.18.1.1'), 429, 'rate-limited');
    const other = await signupUser(server, false);
    const theirs = parseSetCookies(await server.fetch('/api/v1/auth/login', { method: 'POST', headers: { 'x-forwarded-for': '198.18.4.4' }, json: { email: other.email, password: other.password } })).mw_device;
    await expectProblem(await loginWith(owner.password, '198.18.6.6', `mw_device=${theirs.value}`), 429, 'rate-limited');
    await expectProblem(await loginWith(owner.password, '198.18.6.7', `mw_device=${'x'.repeat(43)}`), 429, 'rate-limited');
    // The owner's own address is let in (and the right password clears the account's count)...
    expect((await loginWith(owner.password, OWNER)).status).toBe(200);
    // ...and, under a second flood, so is the owner's device on a network it never used.
    await flood(2);
    await expectProblem(await loginWith(owner.password, '198.18.1.2'), 429, 'rate-limited');
    expect((await loginWith(owner.password, '198.18.2.2', `mw_device=${device.value}`)).status).toBe(200);
    // Wrong passwords from the owner's own device are still counted, on that device alone.
    const fromDevice: number[] = [];
    for (let i = 0; i < 7; i++) fromDevice.push((await loginWith('wrong-wrong', '198.18.2.2', `mw_device=${device.value}`)).status);
    expect(fromDevice).toEqual([401, 401, 401, 401, 401, 429, 429]);
  });

  it('two processes on one database share the counts (the free attempts do not double)', async () => {
    const first = await start();
    const second = await start({ database: first.database });
    second.clock.frozenAt = first.clock.now(); // one time for both processes, as on one host
    const owner = await signupUser(first, false);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await login(i % 2 ? second : first, owner, 'wrong-wrong', ATTACKER)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
  });

  it('sign-up keeps its limit per address', async () => {
    const server = await start({ config: { trustProxy: true, authThrottles: DEFAULT_AUTH_THROTTLES } });
    const statuses: number[] = [];
    for (let i = 0; i < DEFAULT_AUTH_THROTTLES.signupFreePerAddress + 2; i++) {
      const response = await server.fetch('/api/v1/auth/signup', { method: 'POST', headers: { 'x-forwarded-for': ATTACKER }, json: { email: `flood-${i}@example.test`, password: 'free credits please' } });
      statuses.push(response.status);
    }
    expect(statuses.filter((s) => s === 201)).toHaveLength(DEFAULT_AUTH_THROTTLES.signupFreePerAddress);
    expect(statuses.slice(-2)).toEqual([429, 429]);
  });
});
