/** POST /api/v1/pvs, /segment, /everything and /embeddings: headers, a stored answer or the parsed body, then one domain call. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { IDEMPOTENCY_KEY_PATTERN, LIMITS } from '../../../contract/limits';
import { EverythingRequest, PvsRequest, SegmentRequest } from '../../../contract/segmentation';
import { EmbeddingRequest } from '../../../contract/embeddings';
import { DomainError } from '../../domain/errors';
import type { MeteredOutcome } from '../../domain/metered/runner';
import type { CallContext, MeteredEndpoint, MeteredRequests } from '../../domain/segmentation';
import type { Services } from '../../domain/services';
import { parseBody } from '../validation';
import { meteredJsonOf, RawJsonBody, useRawJsonBodies } from '../rawJson';
import { bodyDigest } from '../../domain/fingerprint';
import { timedSync } from '../../domain/timings';
import type { WithImageField } from '../../domain/imageField';
import type { MeteredJson } from '../meteredJson';
import { apiRoute } from '../apiRoutes';

/**
 * Largest accepted body: a maximal image (2,097,152 characters) plus 256 KiB for the rest — enough
 * for 1,024 points written with long numbers, a box, an imageId, or 16 prompts of 500 characters
 * even when every character is \u-escaped.
 */
export const METERED_BODY_LIMIT = LIMITS.imageMaxChars + 256 * 1024;

function callContext(request: FastifyRequest): CallContext {
  const rawKey = request.headers['idempotency-key'];
  const rawForce = request.headers['x-force-refresh'];
  if (Array.isArray(rawKey) || (rawKey !== undefined && !IDEMPOTENCY_KEY_PATTERN.test(rawKey))) {
    throw new DomainError('invalid-header', 'Idempotency-Key must be 1 to 128 characters: letters, digits, ".", "_", ":", "-"');
  }
  let forceRefresh = false;
  if (rawForce !== undefined) {
    const value = Array.isArray(rawForce) ? '' : rawForce.trim().toLowerCase();
    if (value !== 'true' && value !== 'false') throw new DomainError('invalid-header', 'X-Force-Refresh must be "true" or "false"');
    forceRefresh = value === 'true';
  }
  return {
    timings: request.timings,
    // A paid (x402) request has no account: its payer is known once the payment is verified.
    accountId: request.principal?.accountId ?? '',
    balanceHint: request.principal?.balanceHint,
    payment: request.payment ?? undefined,
    requestId: request.id,
    method: request.method,
    path: request.routeOptions.url ?? request.url,
    idempotencyKey: rawKey,
    forceRefresh,
  };
}

/** The spec's 413 for an over-long image comes before any other validation of the body. */
function checkImageLength(image: unknown): void {
  if ((typeof image === 'string' || image instanceof Buffer) && image.length > LIMITS.imageMaxChars) {
    throw new DomainError('image-too-large', `image has ${image.length} characters; at most ${LIMITS.imageMaxChars} are accepted`);
  }
}

/**
 * Validates a metered body whose image may have been left as bytes (http/meteredJson.ts). The
 * schemas ask of `image` only that it be a string within the length limits, so a one-character
 * stand-in (or an empty one) is judged as the real string would be; the bytes then take its place.
 */
function parseMetered<S extends z.ZodType<{ image: string }>>(schema: S, { value, image }: MeteredJson): WithImageField<z.infer<S>> {
  if (!image) return parseBody(schema, value);
  const standIn = image.length === 0 ? '' : 'A';
  return { ...parseBody(schema, { ...(value as object), image: standIn }), image };
}

/**
 * Server-Timing: where the time of this call went (ms) — decode (the upload, when a step needed its
 * pixels) and engine (as the worker's engine reports it), worker = queueing + thread hand-over, app = everything else (HTTP, JSON, auth, rate limit,
 * idempotency, ledger). Lets clients and the benchmark see the API's own cost per request.
 */
function serverTiming(reply: FastifyReply, timings: Record<string, number> = {}): void {
  const total = reply.elapsedTime;
  const inner = (timings.decode ?? 0) + (timings.engine ?? 0) + (timings.worker ?? 0);
  const parts = Object.entries(timings).map(([name, ms]) => `${name};dur=${ms.toFixed(2)}`);
  parts.push(`app;dur=${Math.max(0, total - inner).toFixed(2)}`, `total;dur=${total.toFixed(2)}`);
  reply.header('Server-Timing', parts.join(', '));
}

/** An outcome as HTTP: status, the headers that say what happened to the money, the JSON as stored. */
function send(reply: FastifyReply, outcome: MeteredOutcome, ctx: CallContext): FastifyReply {
  serverTiming(reply, ctx.timings);
  if (outcome.kind === 'replayed') {
    reply.code(outcome.status).header('X-Idempotent-Replayed', 'true').header('X-Service-Original-Request-ID', outcome.originalRequestId);
  } else {
    reply.code(200);
  }
  if (outcome.refunded) reply.header('X-Service-Refunded', 'true');
  if (outcome.paymentResponse !== undefined) reply.header('PAYMENT-RESPONSE', outcome.paymentResponse);
  return reply.type('application/json').send(outcome.json);
}

/**
 * A keyed request paid with credits carries the digest of its bytes: when the same bytes were
 * answered before under the same key, the domain answers before the body is even parsed.
 */
function withBodyDigest(request: FastifyRequest, ctx: CallContext): CallContext {
  if (!ctx.idempotencyKey || ctx.payment || !ctx.accountId || !(request.body instanceof RawJsonBody)) return ctx;
  return { ...ctx, bodyDigest: bodyDigest(ctx.method, ctx.path, request.body.bytes) };
}

export async function segmentationRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  const routeOptions = { bodyLimit: METERED_BODY_LIMIT, config: { auth: 'any' as const, metered: true } };
  useRawJsonBodies(app);

  /** Headers → one domain call, which reads the body (413 → validation) only when it needs it. */
  const metered =
    <E extends MeteredEndpoint>(endpoint: E, schema: z.ZodType<Omit<MeteredRequests[E], 'image'> & { image: string }>) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const ctx = withBodyDigest(request, callContext(request));
      const readBody = () =>
        timedSync(ctx.timings, 'parse', () => {
          const json = meteredJsonOf(request.body);
          checkImageLength(json.image ?? (json.value as { image?: unknown } | null)?.image);
          return parseMetered(schema, json) as MeteredRequests[E];
        });
      return send(reply, await services.segmentation.call(endpoint, ctx, readBody), ctx);
    };

  apiRoute(app, 'pvs', routeOptions, metered('pvs', PvsRequest));
  apiRoute(app, 'segment', routeOptions, metered('segment', SegmentRequest));
  const creditsOnly = { ...routeOptions, config: { ...routeOptions.config, perRequestPayment: false } };
  // Credits only: its price (pricing key service:everything) is its own, and x402 has one price for every call.
  apiRoute(app, 'everything', creditsOnly, metered('everything', EverythingRequest));
  // Paid with credits only: an embedding is bought once per photo and account, keyed by its content.
  apiRoute(app, 'embeddings', creditsOnly, metered('embeddings', EmbeddingRequest));
}
