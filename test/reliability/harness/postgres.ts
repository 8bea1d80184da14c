/**
 * PostgreSQL access for the reliability suites: probing, one scratch database per suite, direct reads.
 *
 * Every suite creates its own database from TEST_DATABASE_URL's role (it has CREATEDB) so suites
 * never collide with each other or with the server agent's own tests, and drops it afterwards.
 */
import pg from 'pg';
import { randomBytes } from 'node:crypto';

export const DEFAULT_TEST_DATABASE_URL = 'postgres://maskwright:maskwright@127.0.0.1:5432/maskwright_test';

export function testDatabaseUrl(): string {
  return process.env.TEST_DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL;
}

export interface PostgresAvailability {
  readonly reachable: boolean;
  /** Why it is not reachable, shown in the skip message. */
  readonly reason?: string;
}

/** One connection attempt with a short timeout; never throws. */
export async function probePostgres(url = testDatabaseUrl()): Promise<PostgresAvailability> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return { reachable: true };
  } catch (error) {
    return { reachable: false, reason: (error as Error).message };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Decides whether a PostgreSQL suite runs. When CI has configured TEST_DATABASE_URL explicitly,
 * an unreachable database is a broken environment, not a reason to skip: the suite fails loudly
 * instead of passing vacuously.
 */
export async function postgresForSuite(suiteName: string): Promise<boolean> {
  const availability = await probePostgres();
  if (availability.reachable) return true;
  const message =
    `[${suiteName}] SKIPPED: PostgreSQL is not reachable at ${redactPassword(testDatabaseUrl())} ` +
    `(${availability.reason}). Start PostgreSQL or set TEST_DATABASE_URL to run this suite.`;
  if (process.env.CI && process.env.TEST_DATABASE_URL) {
    throw new Error(message.replace('SKIPPED', 'FAILED (CI configured TEST_DATABASE_URL)'));
  }
  console.warn(message);
  return false;
}

export function redactPassword(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
}

export interface ScratchDatabase {
  readonly url: string;
  readonly name: string;
  query<Row extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<Row[]>;
  drop(): Promise<void>;
}

/** Creates an empty database named after the suite; `drop()` terminates leftover sessions first. */
export async function createScratchDatabase(suiteName: string): Promise<ScratchDatabase> {
  const adminUrl = testDatabaseUrl();
  const name = `mw_rel_${suiteName.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;
  await withClient(adminUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 2 });
  return {
    url: url.toString(),
    name,
    async query(sql, params) {
      const result = await pool.query(sql, params as unknown[] | undefined);
      return result.rows;
    },
    async drop() {
      await pool.end().catch(() => undefined);
      await withClient(adminUrl, async (client) => {
        await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
        await client.query(`DROP DATABASE IF EXISTS ${name}`);
      }).catch((error) => console.warn(`could not drop scratch database ${name}: ${(error as Error).message}`));
    },
  };
}

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}
