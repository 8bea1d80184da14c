/**
 * The throttles in front of login and sign-up (see attemptThrottle.ts for the rule), shaped so
 * that an attacker cannot lock the owner out, not even an owner on a new device at a new address:
 * - a login attempt is counted per (account, client network) with few free attempts, and per client
 *   network over all accounts (a network: an IPv4 address or an IPv6 /64, clientNetwork.ts). Wrong
 *   passwords block the attacker's networks, never another;
 * - per account over all networks it is counted too, but that count refuses no one: past its
 *   ceiling the account is under a flood, and then a network that has not logged into it before gets
 *   one attempt before its doubling wait instead of five. The owner's right password from a new
 *   device and a new network is checked (its first attempt there), and a guesser rotating
 *   networks gets one guess per network;
 * - a device that logged into the account before (its cookie, knownLogins.ts) is counted on its own,
 *   so no one sharing its network holds it back.
 * Sign-up is counted per client network. Answers 429 `rate-limited` with Retry-After before any
 * password is hashed or checked. The trade-off against guessing is in src/server/README.md
 * (Security notes).
 */
import { AttemptCounters, type CounterKey, type ThrottleAnswer, type ThrottlePolicy } from './attemptThrottle';
import type { Clock } from './clock';
import type { Db } from '../db/connect';
import { DomainError } from './errors';
import { KnownLogins } from './knownLogins';
import { clientNetwork } from './clientNetwork';

export interface AuthThrottleSettings {
  /** LOGIN_FREE_ATTEMPTS: login attempts per account from one client address before the doubling delay starts. */
  loginFreePerAccountAndAddress: number;
  /** LOGIN_FREE_ATTEMPTS_PER_ADDRESS: per client address over all accounts (higher: many people may share one address). */
  loginFreePerAddress: number;
  /** LOGIN_FREE_ATTEMPTS_PER_ACCOUNT: per account over all addresses; past it the account is under a flood and new networks get one attempt each. */
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
   * counted on its own (per account and device). Everyone else is counted per (account, network)
   * and per network; under a flood (the account's count past its ceiling) a network the account
   * has not logged in from gets one attempt where it would get five.
   */
  async admitLogin(email: string, address: string, deviceToken?: string): Promise<void> {
    const account = email.toLowerCase();
    const known = await this.known.recognise(account, address, deviceToken);
    if (known === 'device') {
      const key = { scope: 'login:account+device', key: `${account}\u0000${deviceToken}`, policy: this.policy(this.settings.loginFreePerAccountAndAddress) };
      return refuseUnless(await this.counters.admit([key]), 'too many login attempts');
    }
    const network = clientNetwork(address);
    const flooded = known === null && (await this.counters.waiting({ scope: 'login:account', key: account }));
    const keys: CounterKey[] = [
      { scope: 'login:account+address', key: `${account}\u0000${network}`, policy: this.policy(flooded ? 1 : this.settings.loginFreePerAccountAndAddress) },
      { scope: 'login:address', key: network, policy: this.policy(this.settings.loginFreePerAddress) },
      { scope: 'login:account', key: account, policy: this.policy(this.settings.loginFreePerAccount), countOnly: true },
    ];
    refuseUnless(await this.counters.admit(keys), 'too many login attempts');
  }

  /**
   * The password was right: the counts of this account from this network and device start afresh;
   * the network's count over all accounts does not (else an attacker's own account would reset it),
   * nor does the account's flood measure (the owner logging in does not end a flood, and must not
   * hand the guessers five attempts per network again). The address and device are known from now
   * on; answers the device's token, for its cookie.
   */
  async loginSucceeded(email: string, address: string, deviceToken?: string): Promise<string> {
    const account = email.toLowerCase();
    await this.counters.clear({ scope: 'login:account+address', key: `${account}\u0000${clientNetwork(address)}` });
    if (deviceToken) await this.counters.clear({ scope: 'login:account+device', key: `${account}\u0000${deviceToken}` });
    return this.known.remember(account, address, deviceToken);
  }

  /** A new account's device and address are its first known ones; answers the device's token. */
  async signedUp(email: string, address: string, deviceToken?: string): Promise<string> {
    return this.known.remember(email.toLowerCase(), address, deviceToken);
  }

  async admitSignup(address: string): Promise<void> {
    refuseUnless(
      await this.counters.admit([{ scope: 'signup:address', key: clientNetwork(address), policy: this.policy(this.settings.signupFreePerAddress) }]),
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
