/**
 * Environment settings the suites pass to server processes. The names are the server's
 * (src/server/README.md); keeping them in one place means one edit if the server renames one.
 */
export const KNOB = {
  rateLimitPerSecond: 'RATE_LIMIT_PER_SECOND',
  faultInjection: 'FAULT_INJECTION',
  signupFreePerAddress: 'SIGNUP_FREE_PER_ADDRESS',
  loginFreePerAddress: 'LOGIN_FREE_ATTEMPTS_PER_ADDRESS',
  loginFreePerAccountAndAddress: 'LOGIN_FREE_ATTEMPTS',
  loginFreePerAccount: 'LOGIN_FREE_ATTEMPTS_PER_ACCOUNT',
  inferenceAccountQueue: 'INFERENCE_ACCOUNT_QUEUE',
  refundBudget: 'REFUND_BUDGET',
} as const;

/**
 * Rate limits high enough that a concurrency test measures concurrency, not the limiters (all its
 * sign-ups and logins come from one address; the throttles have their own tests in api.trust.test.ts;
 * an account's share of the inference queue and its refunded-work budget theirs in
 * api.fairness.test.ts and api.refundBudget.test.ts).
 */
export const UNLIMITED_RATE = { [KNOB.rateLimitPerSecond]: '100000', [KNOB.signupFreePerAddress]: '1000000', [KNOB.loginFreePerAddress]: '1000000',
  [KNOB.loginFreePerAccountAndAddress]: '1000000', [KNOB.loginFreePerAccount]: '1000000',
  [KNOB.inferenceAccountQueue]: '1000000', [KNOB.refundBudget]: '1000000',
};

/** The sample the suites segment (451 x 300 photo of a cat) and a click on the cat's face. */
export const SAMPLE_FILE = 'chelsea.png';
export const CAT_POINT = { x: 220, y: 160 };

export function pvsBody(image: string, imageId: string, point = CAT_POINT) {
  return { image, imageId, points: [{ x: point.x, y: point.y, positive: true }], multimaskOutput: false };
}
