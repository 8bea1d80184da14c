/**
 * The OpenAPI 3.1 document, generated from the zod contract (zod 4's z.toJSONSchema). Served at
 * GET /api/v1/openapi.json and rendered as HTML at /docs.
 */
import { z } from 'zod';
import { Account, ApiKeyCreated, ApiKeyList, CreditPackageList, CreditPurchase, CreditPurchaseRequest, Credentials } from './account';
import { LIMITS } from './limits';
import { Problem, PROBLEM_TYPES, problemTypeUri } from './problems';
import { EverythingRequest, EverythingResponse, PvsRequest, PvsResponse, SegmentRequest, SegmentResponse } from './segmentation';
import { EmbeddingRequest, EmbeddingResponse } from './embeddings';
import { ANNOTATION_LIMITS, EXPORT_FORMATS, PROJECT_THUMBNAIL_MAX_SIDE, AddImageRequest, AddMemberRequest, CreateProjectRequest, ImageAnnotations, ProjectAnnotations, Member, MemberList, Project, ProjectImage, ProjectImageList, ProjectList, UpdateClassesRequest, WriteAnnotationsRequest } from './projects';
import { openApiPaths, type ApiRouteId } from './routes';
import { AssignImageRequest, CreateJobRequest, InvitationList, Job, JobList, ProjectEvent } from './jobs';
import { DEFAULT_LEARNED_MODEL_MAX_BYTES, LearnedModel, PutLearnedModelRequest } from './learned';

type JsonObject = Record<string, unknown>;

function schemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any', reused: 'inline' }) as JsonObject;
  delete json.$schema;
  delete json.id;
  return json;
}

const SessionResponse = z.object({
  email: z.string(),
  credits: z.number().int(),
  csrfToken: z.string().describe('Also set as the `mw_csrf` cookie; send it as `X-CSRF-Token` on state-changing cookie requests.'),
});

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: string) => ({ 'application/json': { schema: ref(name) } });
const problem = (description: string, slugs: (keyof typeof PROBLEM_TYPES)[]) => ({
  description: `${description} Problem types: ${slugs.map((s) => `\`${problemTypeUri(s)}\``).join(', ')}.`,
  content: { 'application/problem+json': { schema: ref('Problem') } },
});

const requestIdHeader = {
  'X-Service-Request-ID': { description: 'Id of this request (also `requestId` in problem bodies).', schema: { type: 'string' } },
};
const retryAfter = { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } } };

const meteredParameters = [
  {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Same key + same body within 24 h replays the stored result without a new charge; same key + different body → 409; while the original runs or its refund is pending → 409 with Retry-After. Scoped per account.',
    schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
  },
  {
    name: 'X-Force-Refresh',
    in: 'header',
    required: false,
    description:
      '`true` starts a new paid attempt instead of reusing an identical unkeyed request of the last 5 minutes. Ignored when Idempotency-Key is sent (the key takes precedence).',
    schema: { type: 'string', enum: ['true', 'false'] },
  },
  {
    name: 'PAYMENT-SIGNATURE',
    in: 'header',
    required: false,
    description:
      'Per-request payment (x402 v2), only when the server offers it (`perRequestPayment` on GET /api/v1/credit-packages) and only without `Authorization` (an API key always means credits). Base64 of the x402 v2 PaymentPayload, signed for one of the requirements in the `PAYMENT-REQUIRED` header of a 402 (scheme `exact`, an EIP-3009 authorization). The payment is verified with the facilitator before the engine runs and settled only for a successful result. Idempotency rules apply per payer address: a retry with the same payment, or the same Idempotency-Key, gets the stored result and is never settled twice.',
    schema: { type: 'string' },
  },
];

const paymentRequiredHeader = {
  'PAYMENT-REQUIRED': {
    description: 'Base64 of the x402 v2 PaymentRequired object: `{x402Version: 2, error?, resource: {url, …}, accepts: [{scheme, network, asset, amount, payTo, maxTimeoutSeconds, extra}]}`.',
    schema: { type: 'string' },
  },
};
const paymentResponseHeader = {
  'PAYMENT-RESPONSE': {
    description: 'Base64 of the x402 v2 SettleResponse `{success, transaction, network, payer, errorReason?}` of this request (also on replays of a paid request).',
    schema: { type: 'string' },
  },
};

const meteredResponses = (success: string) => ({
  '200': {
    description:
      'Success. For API-key requests also an empty result, which is refunded: then `X-Service-Refunded: true` once the refund is complete. A replay carries `X-Idempotent-Replayed: true` and `X-Service-Original-Request-ID`. A request paid per request (x402) carries `PAYMENT-RESPONSE`: the result is released only after the payment settled.',
    headers: {
      ...requestIdHeader,
      'X-Service-Refunded': { schema: { type: 'string', enum: ['true'] }, description: 'The credit of this call was refunded.' },
      'X-Idempotent-Replayed': { schema: { type: 'string', enum: ['true'] } },
      ...paymentResponseHeader,
    },
    content: json(success),
  },
  '400': problem(
    `Malformed request, or one that can only come back empty (a box under one pixel, an image under ${LIMITS.imageMinSide} pixels a side, a subnormal number: \`degenerate-prompt\` with \`rule\`); nothing charged, no engine work.`,
    ['validation-failed', 'malformed-json', 'invalid-image', 'invalid-header', 'degenerate-prompt'],
  ),
  '401': problem('Missing, unknown, revoked or rotated-out API key. Carries `WWW-Authenticate: Bearer`.', ['unauthenticated']),
  '408': problem('The headers or the body did not arrive within the server\'s deadlines (30 s by default); the connection is closed, nothing charged.', ['request-timeout']),
  '402': {
    ...problem(
      'No credit left (API key). With per-request payment (x402) enabled: no key and no payment (`payment-required`, instead of 401), a payment that is malformed, does not match or does not verify (`payment-invalid`, with `reason`), or a result processed but not settled (`payment-settlement-failed`: the result is withheld, `PAYMENT-RESPONSE` carries the failed settlement). The first two carry `PAYMENT-REQUIRED`.',
      ['insufficient-credits', 'payment-required', 'payment-invalid', 'payment-settlement-failed'],
    ),
    headers: { ...requestIdHeader, ...paymentRequiredHeader, ...paymentResponseHeader },
  },
  '403': problem('Cookie-authenticated request without a valid CSRF token.', ['csrf-token-invalid']),
  '409': problem('Idempotency conflict.', ['idempotency-key-reused', 'request-in-progress', 'refund-pending']),
  '413': problem(`Image over ${LIMITS.imageMaxChars} characters or payload too large.`, ['image-too-large', 'payload-too-large']),
  '415': problem('Not JSON.', ['unsupported-media-type']),
  '422': problem('x402 only: the result is empty (no mask); the payment was verified but not settled, and may be used again.', ['empty-result']),
  '429': problem(
    `More than ${LIMITS.requestsPerSecondPerUser} requests per second for the account (\`rate-limited\`), as many calls running or waiting for a worker as one account may hold (\`account-queue-full\`), or the account's budget of refunded engine runs for the window used up (\`refund-budget-exhausted\`, with \`rule\`, \`limit\`, \`windowSeconds\`). Nothing charged; retry after \`Retry-After\` seconds.`,
    ['rate-limited', 'account-queue-full', 'refund-budget-exhausted'],
  ),
  '500': problem('Engine failure or invalid result; the credit is refunded (x402: the payment is not settled).', ['engine-failure', 'upstream-failure', 'invalid-result', 'attempt-abandoned', 'internal-error']),
  '502': problem('x402 only: the facilitator could not be reached. At verification nothing ran; at settlement the result is withheld and the outcome is unknown.', ['payment-facilitator-unavailable']),
  '503': problem('Inference workers saturated; nothing charged.', ['service-busy']),
});

/** /embeddings: paid with credits only, keyed by the photo's content (no x402, no unkeyed window). */
const embeddingParameters = [
  {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Accepted and checked like on the other metered routes, but the photo itself is the key here: the same photo (and server encoder) from the same account within 24 h is replayed without a new charge, whatever key it carries or lacks; a request for it while the first still runs → 409 with Retry-After.',
    schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
  },
];
/** A metered route that only credits pay for: no x402 header, answers or problems. */
const creditsOnlyParameters = meteredParameters.filter((p) => p.name !== 'PAYMENT-SIGNATURE');
function creditsOnlyResponses(success: string, pricingKey: string) {
  const { '402': _x402Only, '422': _emptyOnlyX402, '502': _facilitatorOnly, ...base } = meteredResponses(success);
  return { ...base, '402': problem(`Fewer credits left than the price of this call (pricing key \`${pricingKey}\`, 1 credit unless configured).`, ['insufficient-credits']) };
}

const embeddingResponses = {
  ...creditsOnlyResponses('EmbeddingResponse', 'service:embedding'),
  '200': {
    description:
      'The embedding, int8 with one scale per channel, and the encoder that made it: use it only with the decoder of that encoder (`model.id`). A replay (same photo, same account, within 24 h) carries `X-Idempotent-Replayed: true` and costs nothing.',
    headers: { ...requestIdHeader, 'X-Idempotent-Replayed': { schema: { type: 'string', enum: ['true'] } } },
    content: json('EmbeddingResponse'),
  },
  '409': problem('The server runs another encoder than the one named in `model` (nothing charged), or the same photo is being embedded for this account right now (Retry-After), or its refund is pending.', ['model-mismatch', 'request-in-progress', 'refund-pending']),
};

const bearer = [{ bearerKey: [] }, { sessionCookie: [] }];
const metered = [...bearer, { x402Payment: [] }];
const sessionOnly = [{ sessionCookie: [] }];
const accountProblems = {
  '401': problem('Not logged in (or bad key).', ['unauthenticated']),
  '403': problem('CSRF check failed.', ['csrf-token-invalid']),
};

/** Projects (issue 28): key or session on every route; a project you may not see is 404, never 403. */
const pathParameter = (name: string, description: string) => ({ name, in: 'path', required: true, description, schema: { type: 'string' } });
const projectId = pathParameter('projectId', 'The project.');
const imageId = pathParameter('imageId', 'An image of the project.');
const projectReads = {
  '401': problem('No API key or session (or a bad one).', ['unauthenticated']),
  '404': problem('No such project, or it is neither yours nor shared with you (never 403: whether it exists is not told); or no such image or member in it.', ['not-found']),
};
const projectWrites = {
  ...projectReads,
  '400': problem('The body does not match the schema.', ['validation-failed', 'malformed-json']),
  '403': problem('Your role does not allow this (members only), or the cookie request lacks the CSRF token.', ['role-forbidden', 'csrf-token-invalid']),
  '415': problem('The body is not `application/json`.', ['unsupported-media-type']),
};
const revisionHeader = { ETag: { description: 'The revision of the annotations, quoted: `"<revision>"`.', schema: { type: 'string' } } };

export function buildOpenApiDocument(): JsonObject {
  const schemas: Record<string, JsonObject> = {
    PvsRequest: schemaOf(PvsRequest, 'input'),
    PvsResponse: schemaOf(PvsResponse, 'output'),
    SegmentRequest: schemaOf(SegmentRequest, 'input'),
    SegmentResponse: schemaOf(SegmentResponse, 'output'),
    EverythingRequest: schemaOf(EverythingRequest, 'input'),
    EverythingResponse: schemaOf(EverythingResponse, 'output'),
    EmbeddingRequest: schemaOf(EmbeddingRequest, 'input'),
    EmbeddingResponse: schemaOf(EmbeddingResponse, 'output'),
    Credentials: schemaOf(Credentials, 'input'),
    SessionResponse: schemaOf(SessionResponse, 'output'),
    Account: schemaOf(Account, 'output'),
    ApiKeyCreated: schemaOf(ApiKeyCreated, 'output'),
    ApiKeyList: schemaOf(ApiKeyList, 'output'),
    CreditPackageList: schemaOf(CreditPackageList, 'output'),
    CreditPurchaseRequest: schemaOf(CreditPurchaseRequest, 'input'),
    CreditPurchase: schemaOf(CreditPurchase, 'output'),
    Problem: schemaOf(Problem, 'output'),
    CreateProjectRequest: schemaOf(CreateProjectRequest, 'input'),
    Project: schemaOf(Project, 'output'),
    ProjectList: schemaOf(ProjectList, 'output'),
    UpdateClassesRequest: schemaOf(UpdateClassesRequest, 'input'),
    AddImageRequest: schemaOf(AddImageRequest, 'input'),
    ProjectImage: schemaOf(ProjectImage, 'output'),
    ProjectImageList: schemaOf(ProjectImageList, 'output'),
    ImageAnnotations: schemaOf(ImageAnnotations, 'output'),
    ProjectAnnotations: schemaOf(ProjectAnnotations, 'output'),
    CreateJobRequest: schemaOf(CreateJobRequest, 'input'),
    Job: schemaOf(Job, 'output'),
    JobList: schemaOf(JobList, 'output'),
    ProjectEvent: schemaOf(ProjectEvent, 'output'),
    InvitationList: schemaOf(InvitationList, 'output'),
    AssignImageRequest: schemaOf(AssignImageRequest, 'input'),
    WriteAnnotationsRequest: schemaOf(WriteAnnotationsRequest, 'input'),
    AddMemberRequest: schemaOf(AddMemberRequest, 'input'),
    Member: schemaOf(Member, 'output'),
    MemberList: schemaOf(MemberList, 'output'),
    LearnedModel: schemaOf(LearnedModel, 'output'),
    PutLearnedModelRequest: schemaOf(PutLearnedModelRequest, 'input'),
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Maskwright API',
      version: '1.0.0',
      description:
        'Metered image segmentation: text prompts (/segment) and points/boxes (/pvs). One credit per successful call; failures and empty results are refunded. Alternatively, when the server offers it (`perRequestPayment` on GET /api/v1/credit-packages), a call without an API key is paid per request with x402 v2 (`PAYMENT-REQUIRED` / `PAYMENT-SIGNATURE` / `PAYMENT-RESPONSE` headers): verified before the engine runs, settled only for a success; an empty result is 422 and not settled. Errors are RFC 9457 problem+json with a stable `type` per condition (see x-problem-types). Every response carries `X-Service-Request-ID`. The image is Base64 with or without a `data:<media_type>;base64,` prefix, at most 2,097,152 characters; the whole body of a metered call at most 2,359,296 bytes.',
    },
    servers: [{ url: '/' }],
    components: {
      schemas,
      securitySchemes: {
        bearerKey: { type: 'http', scheme: 'bearer', description: 'API key from POST /api/v1/api-keys.' },
        sessionCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: 'mw_session',
          description: 'Browser session (HttpOnly, SameSite=Lax). State-changing requests also need `X-CSRF-Token` = the `mw_csrf` cookie.',
        },
        x402Payment: {
          type: 'apiKey',
          in: 'header',
          name: 'PAYMENT-SIGNATURE',
          description:
            'Per-request payment (x402 v2, `exact` scheme), on /pvs and /segment when the server is configured for it: a call without credentials gets 402 with `PAYMENT-REQUIRED`; resend it with `PAYMENT-SIGNATURE`. Settled only for a successful result; an empty result is 422 and never settled.',
        },
      },
    },
    'x-problem-types': Object.fromEntries(
      Object.entries(PROBLEM_TYPES).map(([slug, info]) => [problemTypeUri(slug as keyof typeof PROBLEM_TYPES), info]),
    ),
    paths: openApiPaths(OPERATIONS),
  };
}

/**
 * What each route of the table (./routes.ts) does, by its id: a route the table gains is a type
 * error here until it is described.
 */
const OPERATIONS: Record<ApiRouteId, JsonObject> = {
  pvs: {
    summary: 'Segment one object from points and/or a center-anchored box',
    security: metered,
    parameters: meteredParameters,
    requestBody: { required: true, content: json('PvsRequest') },
    responses: meteredResponses('PvsResponse'),
  },
  segment: {
    summary: 'Segment objects named by text prompts',
    security: metered,
    parameters: meteredParameters,
    requestBody: { required: true, content: json('SegmentRequest') },
    responses: meteredResponses('SegmentResponse'),
  },
  everything: {
    summary: 'Segment everything: every object and region of a photo, as proposals to review',
    description:
      'Finds every object and region without a prompt (the shipped rule: each box the detectors see, of any class, as a box prompt, then a coarse grid of clicks where nothing was found yet; src/engine/everything/). Predictions come best first, at most 100: `confidence` is the decoder\'s predicted IoU × the mask\'s stability, `source` says what prompted the mask (`detector`, then `label` names its class, or `grid`). Costs the price of pricing key `service:everything` (1 credit unless configured); the same Idempotency-Key, refund, rate-limit and size rules as /pvs and /segment: a photo in which nothing is found is answered 200 with no predictions and refunded (`X-Service-Refunded: true`). Credits only (API key or session).',
    security: bearer,
    parameters: creditsOnlyParameters,
    requestBody: { required: true, content: json('EverythingRequest') },
    responses: creditsOnlyResponses('EverythingResponse', 'service:everything'),
  },
  embeddings: {
    summary: 'The image embedding of a photo, computed on the server, for decoding clicks locally',
    description:
      'Runs the server\'s SAM encoder (onnxruntime-node) on the photo and returns its embedding compactly (int8 with one scale per channel, about 1 MB for 1 × 256 × 64 × 64) with the encoder\'s identity. Costs the price of pricing key `service:embedding` (1 credit unless configured), once per photo and account: the same photo again is a free replay for 24 h. Failures are refunded (`X-Service-Refunded`). Credits only (API key or session).',
    security: bearer,
    parameters: embeddingParameters,
    requestBody: { required: true, content: json('EmbeddingRequest') },
    responses: embeddingResponses,
  },
  signup: {
    summary: 'Create an account (5 free credits) and log in',
    security: [],
    requestBody: { required: true, content: json('Credentials') },
    responses: {
      '201': { description: 'Created; sets the `mw_session` (HttpOnly) and `mw_csrf` cookies.', content: json('SessionResponse') },
      '400': problem('Invalid email or password (8 to 256 characters).', ['validation-failed', 'malformed-json']),
      '409': problem('Email taken.', ['email-taken']),
      '415': problem('The body is not `application/json`.', ['unsupported-media-type']),
      '429': problem('Too many sign-ups from this client address: wait `Retry-After` seconds (the wait doubles with each further attempt).', ['rate-limited']),
    },
  },
  login: {
    summary: 'Log in',
    security: [],
    requestBody: { required: true, content: json('Credentials') },
    responses: {
      '200': { description: 'Logged in; sets the session cookies.', content: json('SessionResponse') },
      '400': problem('Malformed body: not JSON, or email/password missing or not strings.', ['validation-failed', 'malformed-json']),
      '401': problem('Wrong email or password.', ['invalid-credentials']),
      '415': problem('The body is not `application/json`.', ['unsupported-media-type']),
      '429': problem('Too many login attempts for this account from this client address, from this address over all accounts, or for this account over all addresses (a much higher ceiling): wait `Retry-After` seconds (the wait doubles with each further attempt; the password is not checked meanwhile).', ['rate-limited']),
    },
  },
  logout: { summary: 'Log out', security: sessionOnly, responses: { '204': { description: 'Logged out' }, ...accountProblems } },
  account: {
    summary: 'The calling account and its credit balance',
    security: bearer,
    responses: { '200': { description: 'The account', content: json('Account') }, ...accountProblems },
  },
  listApiKeys: {
    summary: 'List active API keys (never the secret)',
    security: sessionOnly,
    responses: { '200': { description: 'Keys', content: json('ApiKeyList') }, ...accountProblems },
  },
  createApiKey: {
    summary: 'Create an API key (the secret is shown only in this response)',
    security: sessionOnly,
    responses: {
      '201': { description: 'Created', content: json('ApiKeyCreated') },
      '400': problem('A body was sent and it is not JSON (the body is optional and ignored).', ['malformed-json']),
      '415': problem('A body was sent and it is not `application/json`.', ['unsupported-media-type']),
      ...accountProblems,
    },
  },
  rotateApiKey: {
    summary: 'Replace a key by a new one; the old one stops working at once',
    security: sessionOnly,
    parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
    responses: {
      '201': { description: 'The new key', content: json('ApiKeyCreated') },
      '400': problem('The URL is not validly percent-encoded.', ['malformed-request', 'malformed-json']),
      '404': problem('No such active key.', ['not-found']),
      ...accountProblems,
    },
  },
  revokeApiKey: {
    summary: 'Revoke a key',
    security: sessionOnly,
    parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
    responses: {
      '204': { description: 'Revoked' },
      '400': problem('The URL is not validly percent-encoded.', ['malformed-request']),
      '404': problem('No such active key.', ['not-found']),
      ...accountProblems,
    },
  },
  creditPackages: {
    summary: 'Credit packages (one-time purchases), the payment mode (`stripe` or `demo`) and per-request payment (x402), when offered',
    security: [],
    responses: { '200': { description: 'Packages', content: json('CreditPackageList') } },
  },
  creditPurchases: {
    summary: 'Buy a package: a Stripe Checkout session, or (demo mode, no Stripe configured) credited at once',
    security: bearer,
    requestBody: { required: true, content: json('CreditPurchaseRequest') },
    responses: {
      '201': { description: 'Purchase created', content: json('CreditPurchase') },
      '400': problem('Unknown package, or a body that is not JSON.', ['validation-failed', 'malformed-json']),
      '415': problem('The body is not `application/json`.', ['unsupported-media-type']),
      '503': problem('Stripe unreachable.', ['payments-unavailable']),
      ...accountProblems,
    },
  },
  stripeWebhook: {
    summary: 'Stripe webhook (checkout.session.completed / async_payment_succeeded); verifies `Stripe-Signature`',
    security: [],
    responses: {
      '200': { description: 'Received' },
      '400': problem('Bad signature.', ['webhook-signature-invalid']),
    },
  },
  createProject: {
    summary: 'Create a project (you are its owner)',
    security: bearer,
    requestBody: { required: true, content: json('CreateProjectRequest') },
    responses: { '201': { description: 'Created', content: json('Project') }, ...projectWrites },
  },
  listProjects: { summary: 'Projects you own and projects shared with you', security: bearer, responses: { '200': { description: 'Projects', content: json('ProjectList') }, ...projectReads } },
  getProject: { summary: 'One project, with your role in it', security: bearer, parameters: [projectId], responses: { '200': { description: 'The project', content: json('Project') }, ...projectReads } },
  updateProjectClasses: {
    summary: "Replace the project's classes (owner); ids are stable and are what exports write",
    security: bearer,
    parameters: [projectId],
    requestBody: { required: true, content: json('UpdateClassesRequest') },
    responses: { '200': { description: 'The project', content: json('Project') }, ...projectWrites },
  },
  addProjectImage: {
    summary: 'Add an image (owner, annotator); stored once per distinct file, counted against the owner quota',
    security: bearer,
    parameters: [projectId],
    requestBody: { required: true, content: json('AddImageRequest') },
    responses: {
      '201': { description: 'Added', content: json('ProjectImage') },
      '200': { description: 'The same file is in this project already: that image', content: json('ProjectImage') },
      ...projectWrites,
      '400': problem('The body does not match the schema, or the file is not an image.', ['validation-failed', 'malformed-json', 'invalid-image']),
      '413': problem(`The image is over ${LIMITS.imageMaxChars} characters.`, ['image-too-large', 'payload-too-large']),
      '507': problem("Storing it would take the owner's account over its storage quota; nothing was stored.", ['storage-quota-exceeded']),
    },
  },
  listProjectImages: { summary: 'The images of the project with their revisions', security: bearer, parameters: [projectId], responses: { '200': { description: 'Images', content: json('ProjectImageList') }, ...projectReads } },
  deleteProjectImage: { summary: 'Remove an image (owner, annotator; not a reviewer)', security: bearer, parameters: [projectId, imageId], responses: { '204': { description: 'Removed' }, ...projectWrites } },
  projectImageFile: {
    summary: "The image's file, byte for byte as uploaded",
    security: bearer,
    parameters: [projectId, imageId],
    responses: { '200': { description: 'The file (`ETag` = its SHA-256)', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } }, ...projectReads },
  },
  projectImageThumbnail: {
    summary: `A small preview of the image for lists: WebP, shrunk to fit ${PROJECT_THUMBNAIL_MAX_SIDE} × ${PROJECT_THUMBNAIL_MAX_SIDE} px (never enlarged), turned as its EXIF orientation says`,
    description:
      'Rendered once per stored file and cached. The same authorization as the file: a project that is not yours and not shared with you is 404. `ETag` names the file and the rendering, so a revalidation with `If-None-Match` is answered 304 without a body; `Cache-Control: private, max-age=31536000, immutable`.',
    security: bearer,
    parameters: [projectId, imageId, { name: 'If-None-Match', in: 'header', required: false, description: 'The ETag of a thumbnail you hold: 304 when it is still this one.', schema: { type: 'string' } }],
    responses: {
      '200': { description: 'The thumbnail', headers: { ETag: { description: '`"<sha256 of the file>.<rendering>"`', schema: { type: 'string' } } }, content: { 'image/webp': { schema: { type: 'string', format: 'binary' } } } },
      '304': { description: 'Not modified: the thumbnail named by `If-None-Match` is still this one' },
      ...projectReads,
    },
  },
  readProjectAnnotations: {
    summary: "Every image's objects and revision, in the order of the image list (opening a project in one request)",
    security: bearer,
    parameters: [projectId],
    responses: { '200': { description: 'Annotations of every image', content: json('ProjectAnnotations') }, ...projectReads },
  },
  readAnnotations: {
    summary: "The image's objects and their revision",
    security: bearer,
    parameters: [projectId, imageId],
    responses: { '200': { description: 'Annotations', headers: revisionHeader, content: json('ImageAnnotations') }, ...projectReads },
  },
  writeAnnotations: {
    summary: "Replace the image's objects, if they are still at the revision you name (body `revision`, or `If-Match: \"<revision>\"`)",
    security: bearer,
    parameters: [projectId, imageId, { name: 'If-Match', in: 'header', required: false, description: 'The revision the edits were made on, when the body does not name it.', schema: { type: 'string' } }],
    requestBody: { required: true, content: json('WriteAnnotationsRequest') },
    responses: {
      '200': { description: 'Written: the new revision; each changed object is stamped with who changed it and when', headers: revisionHeader, content: json('ImageAnnotations') },
      ...projectWrites,
      '409': problem('Stale revision: someone wrote first. Nothing was written; `currentRevision` and `current` carry what is stored, to merge into and write again.', ['revision-conflict']),
      '413': problem(
        `Past the annotation limits: more than ${ANNOTATION_LIMITS.objectsPerImage} objects, ${ANNOTATION_LIMITS.verticesPerImage} polygon vertices or ${ANNOTATION_LIMITS.maskRunsPerImage} mask run lengths on the image, or more than ${ANNOTATION_LIMITS.verticesPerProject} vertices in the project with this write (\`rule\`, \`value\`, \`limit\`); or a body over 16 MiB. Nothing was written.`,
        ['annotations-too-large', 'payload-too-large'],
      ),
      '503': problem('As many exports and large writes as the server runs at once are running or waiting; retry after `Retry-After` seconds.', ['service-busy']),
    },
  },
  listProjectMembers: { summary: 'The owner and the members with their roles', security: bearer, parameters: [projectId], responses: { '200': { description: 'Members', content: json('MemberList') }, ...projectReads } },
  addProjectMember: {
    summary: 'Share the project with an account (owner): role `annotator` or `reviewer`; again with another role changes it',
    security: bearer,
    parameters: [projectId],
    requestBody: { required: true, content: json('AddMemberRequest') },
    responses: { '201': { description: 'Added', content: json('Member') }, '200': { description: 'Role changed', content: json('Member') }, ...projectWrites },
  },
  removeProjectMember: {
    summary: 'Stop sharing with an account (owner)',
    security: bearer,
    parameters: [projectId, pathParameter('email', "The member's email.")],
    responses: { '204': { description: 'Removed' }, ...projectWrites },
  },
  exportProject: {
    summary: "The project as a dataset, written by the studio's format registry",
    security: bearer,
    parameters: [projectId, { name: 'format', in: 'query', required: true, schema: { type: 'string', enum: [...EXPORT_FORMATS] } }],
    responses: {
      '200': { description: 'The dataset file (`Content-Disposition: attachment`)', content: { 'application/json': {}, 'application/zip': { schema: { type: 'string', format: 'binary' } } } },
      '400': problem('Unknown format.', ['validation-failed']),
      ...projectReads,
      '413': problem(`The project holds more than ${ANNOTATION_LIMITS.verticesPerProject} polygon vertices (or an image more than the per-image limits): refused before any work.`, ['annotations-too-large']),
      '503': problem('As many exports and large writes as the server runs at once are running or waiting (one runs at a time, in a worker thread of its own); retry after `Retry-After` seconds.', ['service-busy']),
    },
  },
  assignProjectImage: {
    summary: 'Assign the image to a member (owner), or unassign it with `null`; annotators see their images first',
    security: bearer,
    parameters: [projectId, imageId],
    requestBody: { required: true, content: json('AssignImageRequest') },
    responses: { '200': { description: 'The image with its assignee', content: json('ProjectImage') }, ...projectWrites },
  },
  listInvitations: {
    summary: 'Projects you were invited to and have not joined yet (they stay hidden, 404, until you join)',
    security: bearer,
    responses: { '200': { description: 'Invitations', content: json('InvitationList') }, ...accountProblems },
  },
  joinProject: {
    summary: 'Accept the invitation to a project: from now on it is in your list with the role you were given',
    security: bearer,
    parameters: [projectId],
    responses: { '200': { description: 'The project', content: json('Project') }, ...projectWrites },
  },
  createJob: {
    summary: 'Start an auto-label job over the project\'s images (owner, annotator): each image\'s result lands as `unreviewed` proposals in a new revision',
    description:
      'Runs in the background on the server\'s job queue. One credit per image (pricing key `service:auto-label`) from the caller\'s account, charged when the image runs, refunded when it gives nothing or fails; an image is never charged twice. Out of credits, the job is `paused` and resumes by itself once credits arrive. `learned` proposes the classes of the project\'s learned model (GET/PUT …/learned): segment everything\'s proposals classified by it, and what the detectors find for learned classes they know by name; a project without a model (or one that knows no class) is refused with 409 `learned-model-missing`, nothing queued. Honours `Idempotency-Key`: the same key and body answer the same job.',
    security: bearer,
    parameters: [projectId, { name: 'Idempotency-Key', in: 'header', required: false, description: 'The same key and body within 24 h answer the job created the first time; another body → 409.', schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' } }],
    requestBody: { required: true, content: json('CreateJobRequest') },
    responses: {
      '202': { description: 'Queued', content: json('Job') },
      ...projectWrites,
      '409': problem('The Idempotency-Key was used for another request; or a `learned` job on a project without a learned model.', ['idempotency-key-reused', 'learned-model-missing']),
    },
  },
  listJobs: { summary: "The project's jobs, newest first", security: bearer, parameters: [projectId], responses: { '200': { description: 'Jobs', content: json('JobList') }, ...projectReads } },
  getJob: { summary: 'One job: its state and counts', security: bearer, parameters: [projectId, pathParameter('jobId', 'The job.')], responses: { '200': { description: 'The job', content: json('Job') }, ...projectReads } },
  cancelJob: {
    summary: 'Cancel a job (owner, or who started it): images not yet run are never run nor charged',
    security: bearer,
    parameters: [projectId, pathParameter('jobId', 'The job.')],
    responses: { '200': { description: 'The job, cancelled (or as it ended, when it had)', content: json('Job') }, ...projectWrites },
  },
  projectEvents: {
    summary: 'Server-Sent Events: every change to the project as it happens (members only)',
    description:
      'Each event is one `ProjectEvent` as JSON on its `data:` line, with an `id:`; reconnecting with `Last-Event-ID` sends what was missed first. `annotations` after every write of an image\'s objects (by a person or a job), `job` after every change of a job\'s state or counts, `learned` after every write of the project\'s learned model, `image-added` / `image-removed` when a photo is added to the project or removed from it. Reaches members connected to any server process.',
    security: bearer,
    parameters: [projectId, { name: 'Last-Event-ID', in: 'header', required: false, description: 'The id of the last event received: the stream starts after it.', schema: { type: 'string' } }],
    responses: { '200': { description: 'The stream', content: { 'text/event-stream': { schema: ref('ProjectEvent') } } }, ...projectReads },
  },
  readLearnedModel: {
    summary: "The project's learned model (members): the learned classes the studio teaches, vectors and weights only, never photos",
    description: 'Answers 404 `not-found` also when the project has no model yet. The `ETag` is the revision, to send back with a write.',
    security: bearer,
    parameters: [projectId],
    responses: { '200': { description: 'The model and its revision', headers: revisionHeader, content: json('LearnedModel') }, ...projectReads },
  },
  writeLearnedModel: {
    summary: "Replace the project's learned model (owner, annotator, reviewer), if it is still at the revision you name (body `revision`, 0 for the first; or `If-Match`)",
    description:
      'Of two members writing on the same revision exactly one succeeds; the other gets 409 `learned-model-conflict` with `currentRevision`, and nothing is written: read the model, learn your decisions into it and write again. The project\'s `learned` jobs classify with the newest model.',
    security: bearer,
    parameters: [projectId, { name: 'If-Match', in: 'header', required: false, description: 'The revision the model was learned on, when the body does not name it.', schema: { type: 'string' } }],
    requestBody: { required: true, content: json('PutLearnedModelRequest') },
    responses: {
      '200': { description: 'Written: the new revision', headers: revisionHeader, content: json('LearnedModel') },
      ...projectWrites,
      '409': problem('Stale revision: someone wrote first. Nothing was written; `currentRevision` names the model stored.', ['learned-model-conflict']),
      '413': problem(`The body is larger than the server stores (\`LEARNED_MODEL_MAX_BYTES\`, ${DEFAULT_LEARNED_MODEL_MAX_BYTES} bytes by default).`, ['payload-too-large']),
    },
  },
  openapi: { summary: 'This document', security: [], responses: { '200': { description: 'OpenAPI 3.1' } } },
  health: { summary: 'Liveness and readiness', security: [], responses: { '200': { description: 'OK' } } },
};
