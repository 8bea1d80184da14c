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
    } = {},
  ) {
    super(detail ?? PROBLEM_TYPES[slug].title);
    this.status = PROBLEM_TYPES[slug].status;
  }
}
