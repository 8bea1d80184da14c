/**
 * Login throttling that cannot be turned against the owner, over real HTTP against a real
 * database: wrong passwords from an attacker's address do not keep the owner (at another address)
 * out; an address is throttled over all accounts; an account has a much higher ceiling over all
 * addresses; and two server processes on one database share the counts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_AUTH_THROTTLES } from './domain/authThrottles';
import { DATABASES, expectProblem, NO_INFERENCE, signupUser, startTestServer, type TestServer, type TestUser } from '../../test/support/server/harness';

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
