/** RFC 9457 problem+json rendering. Every error the API returns goes through `sendProblem`. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { problemTypeUri, PROBLEM_TYPES, type ProblemSlug } from '../../contract/problems';
import { DomainError } from '../domain/errors';

export function sendProblem(request: FastifyRequest, reply: FastifyReply, error: DomainError): FastifyReply {
  const info = PROBLEM_TYPES[error.slug];
  const body: Record<string, unknown> = {
    type: problemTypeUri(error.slug),
    title: info.title,
    status: info.status,
    ...(error.detail ? { detail: error.detail } : {}),
    instance: request.url.split('?')[0],
    requestId: request.id,
    ...(error.extra.errors ? { errors: error.extra.errors } : {}),
    ...(error.extra.retryAfterSeconds !== undefined ? { retryAfterSeconds: error.extra.retryAfterSeconds } : {}),
    ...(error.extra.members ?? {}),
    ...(error.extra.refunded !== undefined ? { refunded: error.extra.refunded } : {}),
    ...(error.extra.settled !== undefined ? { settled: error.extra.settled } : {}),
  };
  if (error.extra.retryAfterSeconds !== undefined) reply.header('Retry-After', String(error.extra.retryAfterSeconds));
  if (info.status === 401) reply.header('WWW-Authenticate', 'Bearer realm="maskwright"');
  for (const [name, value] of Object.entries(error.extra.headers ?? {})) reply.header(name, value);
  if (error.extra.refunded) reply.header('X-Service-Refunded', 'true');
  if (error.extra.paymentResponse !== undefined) reply.header('PAYMENT-RESPONSE', error.extra.paymentResponse).header('Cache-Control', 'no-store');
  reply.code(info.status).type('application/problem+json');
  const raw = Object.entries(error.extra.rawMembers ?? {});
  if (!raw.length) return reply.send(JSON.stringify(body));
  const parts = raw.flatMap(([name, json]) => [Buffer.from(`,${JSON.stringify(name)}:`), json]);
  return reply.send(Buffer.concat([Buffer.from(JSON.stringify(body).slice(0, -1)), ...parts, Buffer.from('}')]));
}

/** Fastify's own errors (body parser, routing) mapped onto our problem types. */
export function problemForFastifyError(error: { code?: string; statusCode?: number; message: string }): DomainError {
  const slugByCode: Record<string, ProblemSlug> = {
    FST_ERR_CTP_BODY_TOO_LARGE: 'payload-too-large',
    FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported-media-type',
    FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'malformed-json',
    FST_ERR_CTP_EMPTY_JSON_BODY: 'malformed-json',
    FST_ERR_CTP_INVALID_JSON_BODY: 'malformed-json',
    FST_ERR_CTP_EMPTY_TYPE: 'unsupported-media-type',
    FST_ERR_CTP_INVALID_TYPE: 'unsupported-media-type',
  };
  const slug = (error.code && slugByCode[error.code]) ?? (error.statusCode === 413 ? 'payload-too-large' : undefined);
  if (slug) return new DomainError(slug, error.message);
  if (error.statusCode === 415) return new DomainError('unsupported-media-type', error.message);
  if (error.statusCode === 405) return new DomainError('method-not-allowed', error.message);
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) return new DomainError('malformed-json', error.message);
  return new DomainError('internal-error');
}
