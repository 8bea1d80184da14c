/**
 * Problem types of the API (RFC 9457 `application/problem+json`).
 *
 * Each condition has one stable `type`: a relative URI reference `/problems/<slug>` that the server
 * itself dereferences to a human-readable page. Clients branch on `type`, never on `title`/`detail`.
 */
import { z } from 'zod';

export interface ProblemTypeInfo {
  readonly status: number;
  readonly title: string;
  readonly description: string;
}

export const PROBLEM_TYPES = {
  'validation-failed': {
    status: 400,
    title: 'Request validation failed',
    description:
      'The body or a parameter does not match the schema: a missing field, a wrong type, a non-finite or negative coordinate, more than 16 prompts or 1,024 points, a PVS request without a box or positive point. `errors` lists each problem with its JSON path.',
  },
  'malformed-json': {
    status: 400,
    title: 'Malformed JSON body',
    description: 'The body is not valid JSON, or is empty where a JSON object is required.',
  },
  'invalid-image': {
    status: 400,
    title: 'Image is not a decodable image',
    description:
      'The `image` value is not valid Base64 (optionally behind a `data:<media_type>;base64,` prefix) or its bytes are not a PNG, JPEG, WebP, GIF, AVIF or TIFF image. Nothing is charged.',
  },
  'degenerate-prompt': {
    status: 400,
    title: 'The prompt or image can give no mask',
    description:
      'The request is well-formed but can only come back empty, so it is refused before anything is charged or computed. `rule` names the rule broken: `box-under-one-pixel` (a box narrower or lower than one pixel), `image-under-minimum-size` (an image under 16 pixels on a side), `subnormal-number` (a coordinate or size between 0 and 2.2e-308, a subnormal float). `errors` lists the fields where that applies.',
  },
  'malformed-request': {
    status: 400,
    title: 'Malformed HTTP request',
    description: 'The request could not be parsed as HTTP/1.1 (bad request line, header syntax or framing). The connection is closed.',
  },
  'invalid-header': {
    status: 400,
    title: 'Invalid request header',
    description:
      '`Idempotency-Key` must be 1 to 128 characters of letters, digits, `.`, `_`, `:`, `-`; `X-Force-Refresh` must be `true` or `false`.',
  },
  'webhook-signature-invalid': {
    status: 400,
    title: 'Webhook signature invalid',
    description: 'The `Stripe-Signature` header does not verify against the configured webhook secret.',
  },
  unauthenticated: {
    status: 401,
    title: 'Authentication required',
    description:
      'No credential, or an unknown, revoked or rotated-out API key, or an expired session. Send `Authorization: Bearer <API key>`.',
  },
  'invalid-credentials': {
    status: 401,
    title: 'Email or password is wrong',
    description: 'Login failed. The same answer is given for an unknown email and a wrong password.',
  },
  'insufficient-credits': {
    status: 402,
    title: 'Insufficient credits',
    description: 'The account has no credit left for this call. Buy a credit package. Nothing was charged.',
  },
  'payment-required': {
    status: 402,
    title: 'Payment required',
    description:
      'No API key and no payment. Send `Authorization: Bearer <API key>` (credits), or pay for this one request with x402: the `PAYMENT-REQUIRED` header (Base64 JSON, x402 v2) and the `x402` member carry the accepted payment requirements; sign one and resend the request with a `PAYMENT-SIGNATURE` header. Only answered when per-request payment is enabled (else 401).',
  },
  'payment-invalid': {
    status: 402,
    title: 'Payment rejected',
    description:
      'The `PAYMENT-SIGNATURE` header could not be decoded, matches none of the accepted requirements, or the facilitator did not verify it (`reason`: the x402 reason, e.g. `invalid_exact_evm_signature`, `invalid_exact_evm_recipient_mismatch`, `invalid_exact_evm_authorization_value_mismatch`, `payment_already_used`). Nothing was run or settled. `PAYMENT-REQUIRED` carries the requirements again.',
  },
  'payment-settlement-failed': {
    status: 402,
    title: 'Payment settlement failed',
    description:
      'The request was processed but the facilitator could not settle the payment (`reason`), so the result is withheld. `PAYMENT-RESPONSE` carries the failed settlement response. Pay again with a new payment.',
  },
  'csrf-token-invalid': {
    status: 403,
    title: 'CSRF token missing or wrong',
    description:
      'A state-changing request authenticated by the session cookie must send, in the `X-CSRF-Token` header, the token bound to that session (the value of the `mw_csrf` cookie set at login). Bearer-authenticated requests are exempt.',
  },
  'role-forbidden': {
    status: 403,
    title: 'Your role in this project does not allow this',
    description:
      'You are a member of the project, but your role does not allow this action: only the owner manages members, a reviewer cannot add or delete images. (A project you are not a member of answers 404, never 403.)',
  },
  'not-found': {
    status: 404,
    title: 'Not found',
    description: 'No such resource or route.',
  },
  'method-not-allowed': {
    status: 405,
    title: 'Method not allowed',
    description: 'The route exists but not with this HTTP method.',
  },
  'idempotency-key-reused': {
    status: 409,
    title: 'Idempotency-Key reused with a different request',
    description:
      'This key was already used (within 24 hours) for a request with a different method, path or body. Use a new key for a new request.',
  },
  'request-in-progress': {
    status: 409,
    title: 'The original request is still running',
    description: 'A request with this Idempotency-Key (or an identical unkeyed request) is still running. Retry after `Retry-After` seconds to get its stored result.',
  },
  'refund-pending': {
    status: 409,
    title: 'The refund of the original request is pending',
    description: 'The original request with this Idempotency-Key failed or came back empty and its refund has not completed yet. Retry after `Retry-After` seconds.',
  },
  'model-mismatch': {
    status: 409,
    title: 'The server runs another encoder',
    description:
      'POST /api/v1/embeddings was asked for an embedding of the encoder named in `model`, and this server runs another one (named in `detail`): its embedding would not fit the caller\'s decoder. Nothing is charged; compute the embedding locally, or load the encoder the server names.',
  },
  'revision-conflict': {
    status: 409,
    title: 'The annotations changed since your revision',
    description:
      'The write was made on an older revision of this image\'s annotations: someone else saved first. Nothing of either write is lost: the body carries `currentRevision` and `current` (the annotations as stored); merge your edits into them and write again with `currentRevision`.',
  },
  'learned-model-conflict': {
    status: 409,
    title: "The project's learned model changed since your revision",
    description:
      'The learned model was replaced by someone else since the revision your write names. Nothing was written: the body carries `currentRevision`; read the model (GET …/learned), learn your decisions into it and write again with that revision.',
  },
  'learned-model-missing': {
    status: 409,
    title: 'The project has no learned model',
    description:
      'A `learned` job proposes the classes the project\'s learned model knows, and this project has none yet, or one that knows no class. Teach the studio a class (label or accept a few objects of it) and save the model (PUT …/learned), then start the job again. Nothing was queued or charged.',
  },
  'email-taken': {
    status: 409,
    title: 'Email already registered',
    description: 'An account with this email exists. Log in instead.',
  },
  'payload-too-large': {
    status: 413,
    title: 'Payload too large',
    description:
      'The request body exceeds the enforced maximum (2,359,296 bytes: a maximal image plus room for 1,024 points or 16 prompts).',
  },
  'image-too-large': {
    status: 413,
    title: 'Image too large',
    description: 'The `image` string is longer than 2,097,152 characters (prefix included).',
  },
  'request-timeout': {
    status: 408,
    title: 'Request took too long to arrive',
    description:
      'The request headers or body did not arrive within the server\'s limits (`HEADERS_TIMEOUT_MS`, `REQUEST_TIMEOUT_MS`; 30 s by default). The connection is closed; nothing was charged.',
  },
  'unsupported-media-type': {
    status: 415,
    title: 'Unsupported media type',
    description: 'Send `Content-Type: application/json`.',
  },
  'headers-too-large': {
    status: 431,
    title: 'Request headers too large',
    description: 'The request headers exceed 16 KiB. The connection is closed.',
  },
  'empty-result': {
    status: 422,
    title: 'Empty result; payment not settled',
    description:
      'A request paid per request (x402) found no mask at all. The payment was verified but not settled: nothing is charged and the signed payment can be used again. (API-key requests get a 200 with the normal structure and a refund instead.)',
  },
  'rate-limited': {
    status: 429,
    title: 'Too many requests',
    description: 'More than 3 requests per second for this account. Retry after `Retry-After` seconds.',
  },
  'account-queue-full': {
    status: 429,
    title: 'Too many calls of this account in flight',
    description:
      'This account already has as many calls running or waiting for an inference worker as one account may hold (INFERENCE_ACCOUNT_QUEUE), so that one account cannot take the queue from the others. Nothing was charged. Retry after `Retry-After` seconds.',
  },
  'refund-budget-exhausted': {
    status: 429,
    title: 'Refunded work budget used up',
    description:
      'This account (or x402 payer) had as many refunded engine runs in the current window as allowed (REFUND_BUDGET per REFUND_BUDGET_WINDOW_SECONDS): calls that ended empty or with an image that did not decode cost the service an engine run and the caller nothing. Further calls are refused before any charge or engine work until the window ends: retry after `Retry-After` seconds. The problem names the rule in `rule`, `limit` and `windowSeconds`.',
  },
  'engine-failure': {
    status: 500,
    title: 'Segmentation failed',
    description:
      'The segmentation engine failed. The credit charged for the call is refunded (`X-Service-Refunded: true` once the refund is complete; otherwise it is retried in the background until it succeeds). A request paid per request (x402) is not settled (`settled: false`).',
  },
  'upstream-failure': {
    status: 500,
    title: 'Text upstream failed',
    description:
      'The configured text-prompt upstream (TEXT_UPSTREAM_URL) was unreachable, timed out, answered with an error or with a body of the wrong shape. The credit charged for the call is refunded, as for an engine failure.',
  },
  'invalid-result': {
    status: 500,
    title: 'Segmentation produced an invalid result',
    description: 'The engine returned a result that violates the response schema. The credit is refunded, as for `engine-failure`.',
  },
  'attempt-abandoned': {
    status: 500,
    title: 'The original attempt was interrupted',
    description:
      'The server process handling this request stopped before answering. The charge was refunded by crash recovery; retrying (with the same key) starts a new attempt.',
  },
  'internal-error': {
    status: 500,
    title: 'Internal server error',
    description: 'An unexpected server-side failure. Nothing is charged for it.',
  },
  'payment-facilitator-unavailable': {
    status: 502,
    title: 'Payment facilitator unavailable',
    description:
      'The x402 facilitator could not be reached or answered malformed data. At verification: nothing was run or settled, retry later. At settlement: the result is withheld and the outcome of the settlement is unknown; the `PAYMENT-RESPONSE` header is absent.',
  },
  'demo-payments-disabled': {
    status: 403,
    title: 'Demo payments are disabled',
    description:
      'No payment provider is configured and this server listens on a non-loopback address: a demo purchase would give credits away to anyone who can reach it. Configure Stripe, or set DEMO_PAYMENTS=on to allow demo purchases anyway. Nothing was credited.',
  },
  'payments-unavailable': {
    status: 503,
    title: 'Payments unavailable',
    description: 'The payment provider could not be reached. Nothing was charged.',
  },
  'storage-quota-exceeded': {
    status: 507,
    title: 'Storage quota exceeded',
    description:
      'Storing this image would take the project owner\'s account over its storage quota (`usedBytes`, `quotaBytes`, `neededBytes` in the body). Nothing was stored. The same bytes stored once count once; delete images or ask the operator for a larger quota (`PROJECT_QUOTA_BYTES`).',
  },
  'annotations-too-large': {
    status: 413,
    title: 'Annotations too large',
    description:
      'The write would take the image or its project past the annotation limits (objects and polygon vertices per image, vertices per project, mask runs per image; `limit`, `value` and `rule` in the body, the numbers in the API README), or a stored project is past them for an export. Nothing was written; split the work over more images or projects, or trace outlines with fewer vertices.',
  },
  'service-busy': {
    status: 503,
    title: 'Service busy',
    description:
      'All inference workers are busy and the bounded queue is full, or (SQLite) another writer held the database\'s write lock longer than a request waits for it (5 s). Nothing was charged. Retry after `Retry-After` seconds.',
  },
} as const satisfies Record<string, ProblemTypeInfo>;

export type ProblemSlug = keyof typeof PROBLEM_TYPES;

export const problemTypeUri = (slug: ProblemSlug): string => `/problems/${slug}`;

export const Problem = z
  .object({
    type: z.string().describe('Stable identifier of the condition: `/problems/<slug>`.'),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().optional(),
    instance: z.string().optional().describe('The request path.'),
    requestId: z.string().describe('Same value as the `X-Service-Request-ID` header.'),
    errors: z
      .array(z.object({ path: z.string(), message: z.string() }))
      .optional()
      .describe('validation-failed and degenerate-prompt: one entry per field that breaks a rule.'),
    rule: z
      .enum(['box-under-one-pixel', 'image-under-minimum-size', 'subnormal-number'])
      .optional()
      .describe('degenerate-prompt only: the rule the request breaks.'),
    retryAfterSeconds: z.number().int().optional(),
    currentRevision: z.number().int().optional().describe('revision-conflict: the revision as stored now.'),
    current: z.unknown().optional().describe('revision-conflict: the annotations as stored now (ImageAnnotations).'),
    usedBytes: z.number().int().optional().describe('storage-quota-exceeded: bytes the owner stores now.'),
    quotaBytes: z.number().int().optional().describe('storage-quota-exceeded: the owner\'s quota.'),
    neededBytes: z.number().int().optional().describe('storage-quota-exceeded: bytes this image would add.'),
    refunded: z.boolean().optional().describe('engine-failure / invalid-result: whether the refund has completed.'),
    settled: z.boolean().optional().describe('x402 requests: whether the payment was settled (always false on an error).'),
    reason: z.string().optional().describe('payment-invalid / payment-settlement-failed: the x402 reason code.'),
    x402: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('payment-required / payment-invalid: the x402 v2 PaymentRequired object, the same as the decoded `PAYMENT-REQUIRED` header.'),
  });
export type Problem = z.infer<typeof Problem>;

/**
 * What a client can rely on in an error answer's body, read leniently: any body (a problem document,
 * a proxy's HTML page, nothing) gives a value, and fields of the wrong type are left out.
 */
export interface ReadProblem {
  readonly type?: string;
  /** The person-readable reason: each field error's message, else `detail`, else `title`. */
  readonly message?: string;
  /** The whole body, for fields only some problems carry (e.g. revision-conflict's `current`). */
  readonly body: Readonly<Record<string, unknown>>;
}

export function readProblem(json: unknown): ReadProblem {
  const body = json !== null && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>) : {};
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const errors = Array.isArray(body.errors) ? body.errors.map((e: unknown) => text((e as { message?: unknown } | null)?.message)).filter(Boolean) : [];
  return { type: text(body.type), message: errors.length > 0 ? errors.join('; ') : (text(body.detail) ?? text(body.title)), body };
}

/** A response body as JSON, or null when it is empty or not JSON. */
export async function jsonBody(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return text ? (JSON.parse(text) as unknown) : null;
  } catch {
    return null;
  }
}
