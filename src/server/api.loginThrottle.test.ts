/**
 * Login throttling that cannot be turned against the owner, over real HTTP against a real
 * database: wrong passwords from an attacker's address do not keep the owner (at another address)
 * out; an address is throttled over all accounts; past the account's ceiling over all addresses a
 * new network gets one attempt (an IPv6 /64 counting as one), so the owner on a new device at a
 * new address still logs in under a flood; and two server processes on one database share the counts.
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

  it('one account tried from many addresses: past the ceiling each new address gets one attempt, then its wait', async () => {
    const ceiling = 12;
    const server = await start({ config: { trustProxy: true, authThrottles: { ...DEFAULT_AUTH_THROTTLES, loginFreePerAccount: ceiling, signupFreePerAddress: 1000 } } });
    const owner = await signupUser(server, false);
    const statuses: number[] = [];
    // Three guesses from each of four addresses: no address reaches its own five, the account reaches its ceiling.
    for (let a = 0; a < 4; a++) for (let i = 0; i < 3; i++) statuses.push((await login(server, owner, 'nope-nope', `192.0.2.${a + 1}`)).status);
    expect(statuses).toEqual(Array(ceiling).fill(401));
    // Under the flood an address the account never logged in from has one attempt, not five.
    const fresh: number[] = [];
    for (let i = 0; i < 3; i++) fresh.push((await login(server, owner, 'nope-nope', '192.0.2.50')).status);
    expect(fresh).toEqual([401, 429, 429]);
    // The addresses that had attempts left are held to the same one.
    expect((await login(server, owner, 'nope-nope', '192.0.2.1')).status).toBe(429);
    expect((await login(server, owner, owner.password, OWNER)).status).toBe(200);
  });

  it("the issue's flood (100 wrong passwords from 20 addresses, then new addresses every 0.5 s): the owner on a new device at a new address logs in", async () => {
    const server = await start();
    const owner = await signupUser(server, false);
    const loginFrom = (password: string, from: string) => login(server, owner, password, from);
    for (let a = 0; a < 20; a++) for (let i = 0; i < 5; i++) expect((await loginFrom('wrong-wrong', `10.1.0.${a + 1}`)).status).toBe(401);
    for (let a = 0; a < 20; a++) await expectProblem(await loginFrom('wrong-wrong', `10.1.0.${a + 1}`), 429, 'rate-limited');
    // One guess per new address, every half second for 20 s; a second guess from any of them waits.
    const rotating: number[] = [];
    for (let i = 0; i < 40; i++) {
      server.clock.advance(500);
      rotating.push((await loginFrom('wrong-wrong', `10.2.${i}.1`)).status);
      rotating.push((await loginFrom('wrong-wrong', `10.2.${i}.1`)).status);
    }
    expect(rotating).toEqual(Array.from({ length: 40 }, () => [401, 429]).flat());
    // The owner, from an address and a device never seen (no cookie), gets in at the first try...
    const response = await loginFrom(owner.password, '198.18.7.7');
    expect(response.status).toBe(200);
    expect(parseSetCookies(response).mw_device.attributes).toMatch(/HttpOnly/i);
    // ...and the flood goes on at one guess per new address: the owner's login did not reset it.
    expect([(await loginFrom('wrong-wrong', '10.3.0.1')).status, (await loginFrom('wrong-wrong', '10.3.0.1')).status]).toEqual([401, 429]);
    // A wrong password from a new address is that address's one attempt: the right one after it waits.
    expect((await loginFrom('wrong-wrong', '198.18.7.8')).status).toBe(401);
    await expectProblem(await loginFrom(owner.password, '198.18.7.8'), 429, 'rate-limited');
  });

  it('a new IPv6 address for every guess counts as one network: its /64', async () => {
    const server = await start();
    const owner = await signupUser(server, false);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await login(server, owner, 'wrong-wrong', `2001:db8:66:1::${(i + 1).toString(16)}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    expect((await login(server, owner, owner.password, '2001:db8:77:1::1')).status).toBe(200);
  });

  it("the owner's device is let in from the attacker's own network; another account's cookie or a made-up one is not", async () => {
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
    // The attacker's network (a café both use) is blocked for the account...
    for (let i = 0; i < 5; i++) expect((await loginWith('wrong-wrong', ATTACKER)).status).toBe(401);
    await expectProblem(await loginWith(owner.password, ATTACKER), 429, 'rate-limited');
    const other = await signupUser(server, false);
    const theirs = parseSetCookies(await server.fetch('/api/v1/auth/login', { method: 'POST', headers: { 'x-forwarded-for': '198.18.4.4' }, json: { email: other.email, password: other.password } })).mw_device;
    await expectProblem(await loginWith(owner.password, ATTACKER, `mw_device=${theirs.value}`), 429, 'rate-limited');
    await expectProblem(await loginWith(owner.password, ATTACKER, `mw_device=${'x'.repeat(43)}`), 429, 'rate-limited');
    // ...but not for the owner's device there.
    expect((await loginWith(owner.password, ATTACKER, `mw_device=${device.value}`)).status).toBe(200);
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
