import type { z } from 'zod';
import { DomainError } from '../domain/errors';

/** zod parse → typed value, or DomainError('validation-failed') listing every issue with its path. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new DomainError('validation-failed', 'the body must be a JSON object', {
      errors: [{ path: '', message: 'expected a JSON object' }],
    });
  }
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const errors = result.error.issues.map((issue) => ({
    path: issue.path.map(String).join('.'),
    message: issue.message,
  }));
  throw new DomainError('validation-failed', errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; '), {
    errors,
  });
}
