/**
 * Table types for Kysely. Timestamps are epoch milliseconds (BIGINT) so both dialects compare them
 * the same way; ids are application-generated text so no dialect-specific sequences are needed.
 */
import type { Generated } from 'kysely';

/** Recovery points of a metered call paid with credits (see src/server/domain/metered/credits.ts). */
export type AttemptState =
  | 'charged' // key claimed and one credit taken in one transaction, engine not yet answered
  | 'completed' // response stored, charge kept
  | 'refund_pending' // response (empty / failure) stored, refund not yet applied
  | 'refunded'; // refund applied; the response is replayable only if it was a 200

export interface AccountsTable {
  id: string;
  email: string;
  password_hash: string;
  /** Cached sum of ledger_entries.amount, updated in the same transaction as each entry. */
  balance: number;
  created_at: number;
}

export interface SessionsTable {
  /** SHA-256 of the session token: a stolen database does not yield usable sessions. */
  token_hash: string;
  account_id: string;
  created_at: number;
  expires_at: number;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  prefix: string;
  /** SHA-256 of the full key (keys carry 256 random bits, so a slow hash adds nothing). */
  key_hash: string;
  created_at: number;
  revoked_at: number | null;
  /** Set when the key was rotated: the id of its successor. */
  replaced_by: string | null;
}

export type LedgerKind = 'signup_grant' | 'purchase' | 'charge' | 'refund';

export interface LedgerEntriesTable {
  id: string;
  account_id: string;
  /** Signed credit delta: positive for grants, purchases and refunds, negative for charges. */
  amount: number;
  kind: LedgerKind;
  /** What the entry is for (attempt id, purchase id, account id); unique per kind = applied once. */
  reference: string;
  created_at: number;
}

export interface AttemptsTable {
  id: string;
  account_id: string;
  endpoint: string;
  fingerprint: string;
  idempotency_key: string | null;
  /**
   * SHA-256 of method, path and the request's bytes as sent (keyed requests only): a byte-identical
   * retry is answered from it before its body is parsed. `fingerprint` stays the rule for all else.
   */
  body_digest: string | null;
  state: AttemptState;
  request_id: string;
  /** server_instances.id of the process running it; with lease_until decides when it is orphaned. */
  owner_instance: string;
  lease_until: number;
  response_status: number | null;
  response_body: string | null;
  /** Whether the stored response may be replayed for the same key (200 responses only). */
  replayable: number;
  failure: string | null;
  refund_attempts: number;
  next_refund_at: number | null;
  last_refund_error: string | null;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
}

export type KeyScope = 'explicit' | 'implicit' | 'content';

export interface IdempotencyKeysTable {
  account_id: string;
  /** explicit = Idempotency-Key header; implicit = unkeyed request (key is the fingerprint); content = the request's content (an embedding: model + photo digest). */
  scope: KeyScope;
  key: string;
  fingerprint: string;
  attempt_id: string;
  /** null while the attempt runs; completion + 24 h (explicit, content) or + 5 min (implicit). */
  expires_at: number | null;
}

export interface RateLimitsTable {
  account_id: string;
  /** JSON array of admission times (ms) inside the current sliding window. */
  recent: string;
}

export interface PurchasesTable {
  id: string;
  account_id: string;
  package_id: string;
  credits: number;
  amount_cents: number;
  currency: string;
  provider: 'demo' | 'stripe';
  stripe_session_id: string | null;
  status: 'pending' | 'paid';
  created_at: number;
  paid_at: number | null;
}

/** A login or sign-up throttle's counter (domain/attemptThrottle.ts), found by a digest of its scope and key. */
export interface AttemptCountersTable {
  id: string;
  attempts: number;
  last_at: number;
  /** No attempt under this counter is admitted before this time. */
  blocked_until: number;
}

export interface RefundBudgetsTable {
  /** The payer's scope: an account id, or an x402 payer. */
  scope: string;
  window_start: number;
  /** Refunded engine runs since window_start. */
  refunded: number;
}

/** A device (by its cookie) or client address an account logged in from: found by a digest of the pair. */
export interface KnownLoginsTable {
  id: string;
  last_at: number;
}

export interface ServerInstancesTable {
  id: string;
  started_at: number;
  heartbeat_at: number;
  pid: number;
}

/** Recovery points of a request paid per request (x402), see src/server/domain/x402/paid-calls.ts. */
export type PaidCallState =
  | 'running' // payment verified, engine (or settlement) under way
  | 'settled' // settled; the 200 response is stored and replayable
  | 'unsettled'; // empty result, failure or failed settlement: nothing settled, nothing replayable

export interface PaidCallsTable {
  id: string;
  /** Lower-case payer address from the facilitator's verification. */
  payer: string;
  endpoint: string;
  fingerprint: string;
  /** SHA-256 of the signed payment (canonical JSON of the payload). */
  payment_id: string;
  idempotency_key: string | null;
  state: PaidCallState;
  request_id: string;
  /** After this instant a `running` call counts as abandoned (its process died). */
  lease_until: number;
  response_status: number | null;
  response_body: string | null;
  /** The PAYMENT-RESPONSE header of the settlement, replayed with the stored body. */
  payment_response: string | null;
  failure: string | null;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
}

/**
 * explicit = Idempotency-Key, implicit = unkeyed request (key = fingerprint), both per payer;
 * payment = the signed payment itself (payer '', key = payment_id): one payment, one settlement.
 */
export type PaidKeyScope = 'explicit' | 'implicit' | 'payment';

export interface PaidKeysTable {
  payer: string;
  scope: PaidKeyScope;
  key: string;
  fingerprint: string;
  call_id: string;
  /** null while the call runs; settlement + 24 h (explicit, payment) or + 5 min (implicit). */
  expires_at: number | null;
}

export interface ProjectsTable {
  id: string;
  owner_id: string;
  name: string;
  /** JSON of ProjectClass[] (contract/projects.ts). */
  classes: string;
  created_at: number;
  updated_at: number;
}

export interface ProjectMembersTable {
  project_id: string;
  account_id: string;
  role: 'annotator' | 'reviewer';
  added_at: number;
  /** null while the membership is an invitation not yet accepted (issue 38): the project stays hidden from them. */
  joined_at?: number | null;
}

/** One row per distinct file, named by the SHA-256 (hex) of its bytes. */
export interface BlobsTable {
  digest: string;
  size: number;
  created_at: number;
}

/** The bytes themselves, with PostgreSQL (SQLite keeps them in files under DATA_DIR). */
export interface BlobDataTable {
  digest: string;
  data: Uint8Array;
}

export interface ProjectImagesTable {
  id: string;
  project_id: string;
  digest: string;
  name: string;
  width: number;
  height: number;
  /** Bumped by every write of `objects`; a write names the revision it was made on. */
  revision: number;
  /** JSON of the stored AnnotationObject[] (contract/projects.ts). */
  objects: string;
  /** Polygon vertices of `objects`, so a project's total is one SUM (the per-project annotation limit). */
  vertex_count: number;
  updated_by: string | null;
  updated_at: number | null;
  created_by: string;
  created_at: number;
  /** The member the owner assigned the image to (issue 38). */
  assignee_id?: string | null;
}

export type JobStateColumn = 'queued' | 'running' | 'paused' | 'done' | 'cancelled' | 'failed';

/** An auto-label job (issue 38): its counts are kept with its images' states, in the same transactions. */
export interface JobsTable {
  id: string;
  project_id: string;
  /** Who started it, and pays for its images. */
  account_id: string;
  kind: 'everything' | 'text' | 'learned';
  /** JSON of string[] (text jobs), or null. */
  prompts: string | null;
  state: JobStateColumn;
  total: number;
  done: number;
  failed: number;
  /** The Idempotency-Key of the POST that created it, and that POST's fingerprint. */
  idempotency_key: string | null;
  fingerprint: string | null;
  created_at: number;
  updated_at: number;
}

/** One image of a job: `pending` until its proposals are written (or it failed), exactly once. */
export interface JobImagesTable {
  job_id: string;
  image_id: string;
  state: 'pending' | 'done' | 'failed' | 'cancelled';
  /** Objects proposed (0 when nothing was found, or all were duplicates of accepted ones). */
  proposed: number;
  finished_at: number | null;
}

/** The live stream of a project (GET …/events): ids only grow, so Last-Event-ID resumes exactly. */
export interface ProjectEventsTable {
  id: Generated<number>;
  project_id: string;
  /** JSON of the ProjectEvent (contract/jobs.ts). */
  payload: string;
  created_at: number;
}

/**
 * A project's learned model (issue 37 item 6): the JSON of LearnedClasses.toJSON(), replaced whole
 * by one conditional UPDATE on `revision`, as an image's annotations are.
 */
export interface LearnedModelsTable {
  project_id: string;
  model: string;
  /** The model without its examples (what a job classifies with), so a job never parses the examples. */
  classifier: string;
  /** JSON of the class ids it knows (the model's `classes` without the background): read without parsing the model. */
  classes: string;
  revision: number;
  bytes: number;
  updated_by: string | null;
  updated_at: number;
}

export interface Database {
  projects: ProjectsTable;
  learned_models: LearnedModelsTable;
  project_members: ProjectMembersTable;
  blobs: BlobsTable;
  blob_data: BlobDataTable;
  project_images: ProjectImagesTable;
  jobs: JobsTable;
  job_images: JobImagesTable;
  project_events: ProjectEventsTable;
  accounts: AccountsTable;
  sessions: SessionsTable;
  api_keys: ApiKeysTable;
  ledger_entries: LedgerEntriesTable;
  attempts: AttemptsTable;
  idempotency_keys: IdempotencyKeysTable;
  rate_limits: RateLimitsTable;
  purchases: PurchasesTable;
  server_instances: ServerInstancesTable;
  paid_calls: PaidCallsTable;
  paid_keys: PaidKeysTable;
  attempt_counters: AttemptCountersTable;
  refund_budgets: RefundBudgetsTable;
  known_logins: KnownLoginsTable;
  kysely_migration?: { name: string; timestamp: string };
  _unused?: { id: Generated<number> };
}
