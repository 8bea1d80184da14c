/**
 * The body of a write that names the revision it was made on, in the body or in `If-Match`
 * (annotations, the learned model): parsed from its text, with `If-Match` standing in for a
 * `revision` the body leaves out.
 */
import { DomainError } from '../errors';

export function revisionedBody(rawBody: string, ifMatchRevision: number | undefined): unknown {
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch (error) {
    throw new DomainError('malformed-json', `the body is not valid JSON: ${(error as Error).message}`);
  }
  const fields = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  return fields && fields.revision === undefined && ifMatchRevision !== undefined ? { ...fields, revision: ifMatchRevision } : body;
}
