/**
 * The one migration set, for SQLite and PostgreSQL alike: only portable column types
 * (text, integer, bigint) and constraints both understand.
 */
import { type Kysely, type Migration, type MigrationProvider, Migrator, PostgresAdapter, sql } from 'kysely';

const initial: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('accounts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('email', 'text', (c) => c.notNull().unique())
      .addColumn('password_hash', 'text', (c) => c.notNull())
      .addColumn('balance', 'integer', (c) => c.notNull().check(sql`balance >= 0`))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('sessions')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('api_keys')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('prefix', 'text', (c) => c.notNull())
      .addColumn('key_hash', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('revoked_at', 'bigint')
      .addColumn('replaced_by', 'text')
      .execute();
    await db.schema.createIndex('api_keys_account').on('api_keys').column('account_id').execute();

    await db.schema
      .createTable('ledger_entries')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('amount', 'integer', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('reference', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('ledger_entries_applied_once', ['kind', 'reference'])
      .execute();
    await db.schema.createIndex('ledger_entries_account').on('ledger_entries').column('account_id').execute();

    await db.schema
      .createTable('attempts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('endpoint', 'text', (c) => c.notNull())
      .addColumn('fingerprint', 'text', (c) => c.notNull())
      .addColumn('idempotency_key', 'text')
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('request_id', 'text', (c) => c.notNull())
      .addColumn('owner_instance', 'text', (c) => c.notNull())
      .addColumn('lease_until', 'bigint', (c) => c.notNull())
      .addColumn('response_status', 'integer')
      .addColumn('response_body', 'text')
      .addColumn('replayable', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('failure', 'text')
      .addColumn('refund_attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_refund_at', 'bigint')
      .addColumn('last_refund_error', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('completed_at', 'bigint')
      .execute();
    await db.schema.createIndex('attempts_state').on('attempts').columns(['state', 'next_refund_at']).execute();
    await db.schema.createIndex('attempts_account').on('attempts').column('account_id').execute();

    await db.schema
      .createTable('idempotency_keys')
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('fingerprint', 'text', (c) => c.notNull())
      .addColumn('attempt_id', 'text', (c) => c.notNull().references('attempts.id'))
      .addColumn('expires_at', 'bigint')
      .addPrimaryKeyConstraint('idempotency_keys_pk', ['account_id', 'scope', 'key'])
      .execute();
    await db.schema.createIndex('idempotency_keys_attempt').on('idempotency_keys').column('attempt_id').execute();

    await db.schema
      .createTable('rate_limits')
      .addColumn('account_id', 'text', (c) => c.primaryKey())
      .addColumn('recent', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('purchases')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('package_id', 'text', (c) => c.notNull())
      .addColumn('credits', 'integer', (c) => c.notNull())
      .addColumn('amount_cents', 'integer', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('stripe_session_id', 'text', (c) => c.unique())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('paid_at', 'bigint')
      .execute();

    await db.schema
      .createTable('server_instances')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('started_at', 'bigint', (c) => c.notNull())
      .addColumn('heartbeat_at', 'bigint', (c) => c.notNull())
      .addColumn('pid', 'integer', (c) => c.notNull())
      .execute();
  },
};

/** Requests paid per request (x402): no account, no ledger; scoped by the payer's address. */
const x402: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('paid_calls')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('payer', 'text', (c) => c.notNull())
      .addColumn('endpoint', 'text', (c) => c.notNull())
      .addColumn('fingerprint', 'text', (c) => c.notNull())
      .addColumn('payment_id', 'text', (c) => c.notNull())
      .addColumn('idempotency_key', 'text')
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('request_id', 'text', (c) => c.notNull())
      .addColumn('lease_until', 'bigint', (c) => c.notNull())
      .addColumn('response_status', 'integer')
      .addColumn('response_body', 'text')
      .addColumn('payment_response', 'text')
      .addColumn('failure', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('completed_at', 'bigint')
      .execute();
    await db.schema.createIndex('paid_calls_payment').on('paid_calls').column('payment_id').execute();

    await db.schema
      .createTable('paid_keys')
      .addColumn('payer', 'text', (c) => c.notNull())
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('fingerprint', 'text', (c) => c.notNull())
      .addColumn('call_id', 'text', (c) => c.notNull().references('paid_calls.id'))
      .addColumn('expires_at', 'bigint')
      .addPrimaryKeyConstraint('paid_keys_pk', ['payer', 'scope', 'key'])
      .execute();
    await db.schema.createIndex('paid_keys_call').on('paid_keys').column('call_id').execute();
  },
};

const bodyDigest: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('attempts').addColumn('body_digest', 'text').execute();
  },
};

/** Login and sign-up throttles shared by every process (domain/attemptThrottle.ts). */
const attemptCounters: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('attempt_counters')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('attempts', 'integer', (c) => c.notNull())
      .addColumn('last_at', 'bigint', (c) => c.notNull())
      .addColumn('blocked_until', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('attempt_counters_last_at').on('attempt_counters').column('last_at').execute();
  },
};

/**
 * Projects (issue 28). Image bytes are content-addressed (`blobs`, one row per distinct file): with
 * PostgreSQL in `blob_data` (bytea), so every process serves every project; with SQLite in files
 * under DATA_DIR (`blob_data` stays empty there). An image's annotations live on its row with a
 * revision that every write checks and bumps.
 */
const projects: Migration = {
  async up(db: Kysely<any>) {
    const binary = db.getExecutor().adapter instanceof PostgresAdapter ? 'bytea' : 'blob';
    await db.schema
      .createTable('projects')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('owner_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('classes', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('projects_owner').on('projects').column('owner_id').execute();

    await db.schema
      .createTable('project_members')
      .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('annotator', 'reviewer')`))
      .addColumn('added_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('project_members_pk', ['project_id', 'account_id'])
      .execute();
    await db.schema.createIndex('project_members_account').on('project_members').column('account_id').execute();

    await db.schema
      .createTable('blobs')
      .addColumn('digest', 'text', (c) => c.primaryKey())
      .addColumn('size', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('blob_data')
      .addColumn('digest', 'text', (c) => c.primaryKey().references('blobs.digest'))
      .addColumn('data', binary, (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('project_images')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('digest', 'text', (c) => c.notNull().references('blobs.digest'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('width', 'integer', (c) => c.notNull())
      .addColumn('height', 'integer', (c) => c.notNull())
      .addColumn('revision', 'integer', (c) => c.notNull())
      .addColumn('objects', 'text', (c) => c.notNull())
      .addColumn('updated_by', 'text')
      .addColumn('updated_at', 'bigint')
      .addColumn('created_by', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('project_images_once', ['project_id', 'digest'])
      .execute();
  },
};

/** Refunded engine runs per payer in the current window (domain/refundBudget.ts). */
const refundBudgets: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('refund_budgets')
      .addColumn('scope', 'text', (c) => c.primaryKey())
      .addColumn('window_start', 'bigint', (c) => c.notNull())
      .addColumn('refunded', 'integer', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('refund_budgets_window_start').on('refund_budgets').column('window_start').execute();
  },
};

/** Devices and client addresses an account logged in from before (domain/knownLogins.ts). */
const knownLogins: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('known_logins')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('last_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('known_logins_last_at').on('known_logins').column('last_at').execute();
  },
};

/** Each image's polygon vertices, counted at each write (the per-project annotation limit). Rows written before count 0 until written again. */
const imageVertexCounts: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('project_images').addColumn('vertex_count', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  },
};

/** Issue 38: auto-label jobs, the projects' event log, invitations and image assignment. */
const jobs: Migration = {
  async up(db: Kysely<any>) {
    const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
    await db.schema
      .createTable('jobs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('prompts', 'text')
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('total', 'integer', (c) => c.notNull())
      .addColumn('done', 'integer', (c) => c.notNull())
      .addColumn('failed', 'integer', (c) => c.notNull())
      .addColumn('idempotency_key', 'text')
      .addColumn('fingerprint', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('jobs_project').on('jobs').columns(['project_id', 'created_at']).execute();
    await db.schema.createIndex('jobs_state').on('jobs').column('state').execute();
    await db.schema.createIndex('jobs_idempotency').on('jobs').columns(['account_id', 'idempotency_key']).unique().execute();
    await db.schema
      .createTable('job_images')
      .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
      .addColumn('image_id', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('proposed', 'integer', (c) => c.notNull())
      .addColumn('finished_at', 'bigint')
      .addPrimaryKeyConstraint('job_images_pk', ['job_id', 'image_id'])
      .execute();
    await db.schema
      .createTable('project_events')
      .addColumn('id', postgres ? 'bigserial' : 'integer', (c) => (postgres ? c.primaryKey() : c.primaryKey().autoIncrement()))
      .addColumn('project_id', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('project_events_project').on('project_events').columns(['project_id', 'id']).execute();
    // Members added before invitations existed had joined.
    await db.schema.alterTable('project_members').addColumn('joined_at', 'bigint').execute();
    await db.updateTable('project_members').set({ joined_at: sql`added_at` }).execute();
    await db.schema.alterTable('project_images').addColumn('assignee_id', 'text').execute();
  },
};

/** Issue 37 item 6: a project's learned model, one row per project. */
const learnedModels: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('learned_models')
      .addColumn('project_id', 'text', (c) => c.primaryKey().references('projects.id').onDelete('cascade'))
      .addColumn('model', 'text', (c) => c.notNull())
      .addColumn('classifier', 'text', (c) => c.notNull())
      .addColumn('classes', 'text', (c) => c.notNull())
      .addColumn('revision', 'integer', (c) => c.notNull())
      .addColumn('bytes', 'integer', (c) => c.notNull())
      .addColumn('updated_by', 'text')
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
  },
};

const MIGRATIONS: Record<string, Migration> = {
  '0001_initial': initial,
  '0002_x402': x402,
  '0003_body_digest': bodyDigest,
  '0004_attempt_counters': attemptCounters,
  '0005_projects': projects,
  '0006_refund_budgets': refundBudgets,
  '0007_known_logins': knownLogins,
  '0008_image_vertex_counts': imageVertexCounts,
  '0009_jobs': jobs,
  '0010_learned_models': learnedModels,
};

class InlineMigrations implements MigrationProvider {
  async getMigrations() {
    return MIGRATIONS;
  }
}

/**
 * `schema` (PostgreSQL): where the migration bookkeeping tables live — the connection's current
 * schema, named explicitly because Kysely otherwise finds same-named tables in other schemas.
 */
export async function migrateToLatest(db: Kysely<any>, schema?: string): Promise<void> {
  const migrator = new Migrator({ db, provider: new InlineMigrations(), ...(schema ? { migrationTableSchema: schema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`database migration failed${failed ? ` at ${failed.migrationName}` : ''}: ${String(error)}`);
  }
}
