import { PROBLEM_TYPES, type ProblemSlug } from '../../contract/problems';

/**
 * A rule of the service said no. Carries the problem type; the HTTP layer renders it as
 * problem+json. Anything that is not a DomainError is an internal error.
 */
export class DomainError extends Error {
  readonly status: number;
  constructor(
    readonly slug: ProblemSlug,
    readonly detail?: string,
    readonly extra: {
      retryAfterSeconds?: number;
      errors?: { path: string; message: string }[];
      headers?: Record<string, string>;
      members?: Record<string, unknown>;
      /** Members whose value is JSON already (bytes), spliced into the problem as they are: a large one is never parsed and serialised again. */
      rawMembers?: Record<string, Uint8Array>;
      /** A paid call failed after its charge: whether the refund is complete (X-Service-Refunded). */
      refunded?: boolean;
      /** An x402 call failed: its payment was not settled. */
      settled?: boolean;
      /** The facilitator's answer to a settlement (x402 PAYMENT-RESPONSE), Base64. */
      paymentResponse?: string;
    } = {},
  ) {
    super(detail ?? PROBLEM_TYPES[slug].title);
    this.status = PROBLEM_TYPES[slug].status;
  }
}
