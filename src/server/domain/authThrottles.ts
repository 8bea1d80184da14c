/**
 * The throttles in front of login and sign-up (see attemptThrottle.ts for the rule), shaped so
 * that an attacker cannot lock the owner out: a login attempt is counted per (account, client
 * address) with few free attempts, per client address over all accounts, and per account over all
 * addresses with a much higher ceiling. Wrong passwords sent from the attacker's address block that
 * address for that account (and, past 20, that address), not the owner's own address; only a flood
 * from many addresses reaches the account's ceiling, and even that does not hold back a device or
 * address the account logged in from before (knownLogins.ts). Sign-up is counted per client address.
 * Answers 429 `rate-limited` with Retry-After before any password is hashed or checked.
 */
import { AttemptCounters, type CounterKey, type ThrottleAnswer, type ThrottlePolicy } from './attemptThrottle';
import type { Clock } from './clock';
import type { Db } from '../db/connect';
import { DomainError } from './errors';
import { KnownLogins } from './knownLogins';

export interface AuthThrottleSettings {
  /** LOGIN_FREE_ATTEMPTS: login attempts per account from one client address before the doubling delay starts. */
  loginFreePerAccountAndAddress: number;
  /** LOGIN_FREE_ATTEMPTS_PER_ADDRESS: per client address over all accounts (higher: many people may share one address). */
  loginFreePerAddress: number;
  /** LOGIN_FREE_ATTEMPTS_PER_ACCOUNT: per account over all addresses; far above the per-address counts, so one attacker cannot reach it. */
  loginFreePerAccount: number;
  /** SIGNUP_FREE_PER_ADDRESS: sign-ups per client address before the doubling delay starts. */
  signupFreePerAddress: number;
}

export const DEFAULT_AUTH_THROTTLES: AuthThrottleSettings = {
  loginFreePerAccountAndAddress: 5,
  loginFreePerAddress: 20,
  loginFreePerAccount: 100,
  signupFreePerAddress: 5,
};

const DELAY = { baseDelayMs: 1000, maxDelayMs: 15 * 60 * 1000, forgetAfterMs: 60 * 60 * 1000 };

export class AuthThrottles {
  private readonly counters: AttemptCounters;
  private readonly known: KnownLogins;
  private readonly policy: (freeAttempts: number) => ThrottlePolicy = (freeAttempts) => ({ ...DELAY, freeAttempts });

  constructor(
    db: Db,
    clock: Clock,
    readonly settings: AuthThrottleSettings = DEFAULT_AUTH_THROTTLES,
  ) {
    this.counters = new AttemptCounters(db, clock);
    this.known = new KnownLogins(db, clock);
  }

  /**
   * Counts a login attempt or refuses it (429). A device that logged into this account before is
   * counted on its own (per account and device): no flood from elsewhere, and no one sharing its
   * address, holds it back. An address the account logged in from before is spared the account's
   * ceiling over all addresses. Everyone else is counted under the three counters.
   */
  async admitLogin(email: string, address: string, deviceToken?: string): Promise<void> {
    const account = email.toLowerCase();
    const known = await this.known.recognise(account, address, deviceToken);
    const perAccountAndAddress = this.policy(this.settings.loginFreePerAccountAndAddress);
    const keys: CounterKey[] =
      known === 'device'
        ? [{ scope: 'login:account+device', key: `${account}\u0000${deviceToken}`, policy: perAccountAndAddress }]
        : [
            { scope: 'login:account+address', key: `${account}\u0000${address}`, policy: perAccountAndAddress },
            { scope: 'login:address', key: address, policy: this.policy(this.settings.loginFreePerAddress) },
            ...(known === 'address' ? [] : [{ scope: 'login:account', key: account, policy: this.policy(this.settings.loginFreePerAccount) }]),
          ];
    refuseUnless(await this.counters.admit(keys), 'too many login attempts');
  }

  /**
   * The password was right: the account's counts start afresh, from this address and device and
   * over all (the owner's success ends a distributed flood's wait); the address's count does not
   * (else an attacker's own account would reset it). The address and device are known from now on;
   * answers the device's token, for its cookie.
   */
  async loginSucceeded(email: string, address: string, deviceToken?: string): Promise<string> {
    const account = email.toLowerCase();
    await this.counters.clear({ scope: 'login:account+address', key: `${account}\u0000${address}` });
    if (deviceToken) await this.counters.clear({ scope: 'login:account+device', key: `${account}\u0000${deviceToken}` });
    await this.counters.clear({ scope: 'login:account', key: account });
    return this.known.remember(account, address, deviceToken);
  }

  /** A new account's device and address are its first known ones; answers the device's token. */
  async signedUp(email: string, address: string, deviceToken?: string): Promise<string> {
    return this.known.remember(email.toLowerCase(), address, deviceToken);
  }

  async admitSignup(address: string): Promise<void> {
    refuseUnless(
      await this.counters.admit([{ scope: 'signup:address', key: address, policy: this.policy(this.settings.signupFreePerAddress) }]),
      'too many sign-ups from this address',
    );
  }
}

function refuseUnless(answer: ThrottleAnswer, what: string): void {
  if (answer.allowed) return;
  throw new DomainError('rate-limited', `${what}; try again in ${answer.retryAfterSeconds} s (the wait doubles with each further attempt)`, {
    retryAfterSeconds: answer.retryAfterSeconds,
  });
}
