/**
 * The throttles in front of login and sign-up (see attemptThrottle.ts for the rule): login per
 * account and per client address, sign-up per client address. Answers 429 `rate-limited` with
 * Retry-After before any password is hashed or checked.
 */
import { admitAll, AttemptThrottle, type ThrottleAnswer } from './attemptThrottle';
import type { Clock } from './clock';
import { DomainError } from './errors';

export interface AuthThrottleSettings {
  /** Login attempts per account (email) before the doubling delay starts. */
  loginFreePerAccount: number;
  /** Login attempts per client address before the doubling delay starts (higher: many people may share one address). */
  loginFreePerAddress: number;
  /** Sign-ups per client address before the doubling delay starts. */
  signupFreePerAddress: number;
}

export const DEFAULT_AUTH_THROTTLES: AuthThrottleSettings = { loginFreePerAccount: 5, loginFreePerAddress: 20, signupFreePerAddress: 5 };

const DELAY = { baseDelayMs: 1000, maxDelayMs: 15 * 60 * 1000, forgetAfterMs: 60 * 60 * 1000 };

export class AuthThrottles {
  private readonly loginPerAccount: AttemptThrottle;
  private readonly loginPerAddress: AttemptThrottle;
  private readonly signupPerAddress: AttemptThrottle;

  constructor(clock: Clock, readonly settings: AuthThrottleSettings = DEFAULT_AUTH_THROTTLES) {
    this.loginPerAccount = new AttemptThrottle(clock, { ...DELAY, freeAttempts: settings.loginFreePerAccount });
    this.loginPerAddress = new AttemptThrottle(clock, { ...DELAY, freeAttempts: settings.loginFreePerAddress });
    this.signupPerAddress = new AttemptThrottle(clock, { ...DELAY, freeAttempts: settings.signupFreePerAddress });
  }

  admitLogin(email: string, address: string): void {
    refuseUnless(admitAll([{ throttle: this.loginPerAccount, key: email }, { throttle: this.loginPerAddress, key: address }]), 'too many login attempts');
  }

  /** The password was right: the account's count starts afresh (the address's does not). */
  loginSucceeded(email: string): void {
    this.loginPerAccount.clear(email);
  }

  admitSignup(address: string): void {
    refuseUnless(admitAll([{ throttle: this.signupPerAddress, key: address }]), 'too many sign-ups from this address');
  }
}

function refuseUnless(answer: ThrottleAnswer, what: string): void {
  if (answer.allowed) return;
  throw new DomainError('rate-limited', `${what}; try again in ${answer.retryAfterSeconds} s (the wait doubles with each further attempt)`, {
    retryAfterSeconds: answer.retryAfterSeconds,
  });
}
