/**
 * Opens the database: embedded SQLite in DATA_DIR by default, PostgreSQL when a URL is given.
 * Both go through Kysely; dialect differences live here and in `Db.forUpdate`.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import {
  Kysely,
  PostgresDialect,
  SqliteDialect,
  type SqliteDatabase,
  sql,
  type Driver,
  type LogEvent,
  type Transaction,
} from 'kysely';
import pg from 'pg';
import { LruCache } from '../../engine/lru';
import { LockWaitingSqliteDriver } from './lockWaitingSqlite';
import type { Database } from './schema';
import { migrateToLatest } from './migrations';

// BIGINT columns hold epoch milliseconds, well inside Number's exact range.
pg.types.setTypeParser(20, (value: string) => Number(value));

export type DialectName = 'sqlite' | 'postgres';

/**
 * `durable`: the commit is on disk before it returns (SQLite synchronous=FULL, PostgreSQL's default).
 * `relaxed`: bookkeeping whose loss in a power cut costs no credit (rate-limit window, settling a
 * response whose charge is already durable): SQLite synchronous=NORMAL, PostgreSQL
 * synchronous_commit=off. A process crash (kill -9) loses neither; only the OS or the machine
 * failing can drop a relaxed commit, and the next durable commit makes it durable too.
 */
export type Durability = 'durable' | 'relaxed';

/** Where the database is, for a worker thread that reads with a connection of its own (exports/storedObjects.ts). */
export type DbLocation = { dialect: 'sqlite'; file: string } | { dialect: 'postgres'; url: string; schema?: string };

export interface Db {
  readonly kysely: Kysely<Database>;
  readonly dialect: DialectName;
  readonly location: DbLocation;
  /** Runs `fn` in one transaction. SQLite: BEGIN IMMEDIATE (one writer, no upgrade deadlocks). */
  transaction<T>(fn: (trx: Transaction<Database>) => Promise<T>, durability?: Durability): Promise<T>;
  /** Hands `observer` the SQL of every statement run from now until the returned function is called (which work a request did: tests). */
  observeQueries(observer: (sql: string) => void): () => void;
  close(): Promise<void>;
}

/** SQLite's dialect on a driver that waits for the write lock without blocking the thread (lockWaitingSqlite.ts). */
class LockWaitingSqliteDialect extends SqliteDialect {
  readonly #handle: SQLite.Database;
  constructor(handle: SQLite.Database) {
    super({ database: handle });
    this.#handle = handle;
  }
  override createDriver(): Driver {
    return new LockWaitingSqliteDriver(this.#handle, withStatementCache(this.#handle), { maxWaitMs: sqliteLockWaitMs });
  }
}

// As long as the busy timeout before: a second process or a project thread's write waits, then fails.
const sqliteLockWaitMs = 5000;

/**
 * Kysely's SQLite driver prepares every query anew; compiling the SQL costs more than running
 * these small indexed statements. The product issues a few dozen distinct statements, so each is
 * compiled once and kept (bounded, least recently used out). Reuse is safe: better-sqlite3 runs a
 * statement to completion synchronously, and nothing here streams rows.
 */
export function withStatementCache(database: SQLite.Database, capacity = 512): SqliteDatabase {
  const statements = new LruCache<string, SQLite.Statement>(capacity);
  return {
    close: () => database.close(),
    prepare(source: string) {
      let statement = statements.get(source);
      if (!statement) {
        statement = database.prepare(source);
        statements.set(source, statement);
      }
      return statement;
    },
  };
}

export interface OpenDatabaseOptions {
  /** postgres://… ; when absent, SQLite at `${dataDir}/maskwright.sqlite`. */
  databaseUrl?: string;
  dataDir?: string;
  /** SQLite file path override (tests use a temporary file). */
  sqliteFile?: string;
  /** PostgreSQL schema to use (tests isolate themselves in a fresh schema). */
  pgSchema?: string;
}

/** Opens the database and brings its schema to the latest migration. */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Db> {
  return connect(options, true);
}

/**
 * Another connection to a database that `openDatabase` opened (and migrated), for a worker thread
 * that writes on its own (exports/projectWorker.ts): the same settings, one connection.
 */
export function connectDatabase(location: DbLocation): Promise<Db> {
  return connect(location.dialect === 'sqlite' ? { sqliteFile: location.file } : { databaseUrl: location.url, pgSchema: location.schema, poolSize: 1 }, false);
}

async function connect(options: OpenDatabaseOptions & { poolSize?: number }, migrate: boolean): Promise<Db> {
  let kysely: Kysely<Database>;
  let dialect: DialectName;
  let relaxedKysely: Kysely<Database> | undefined;
  let location: DbLocation;
  const observers = new Set<(sql: string) => void>();
  const log = (event: LogEvent) => {
    for (const observer of observers) observer(event.query.sql);
  };
  if (options.databaseUrl) {
    dialect = 'postgres';
    const schema = options.pgSchema?.replace(/[^a-z0-9_]/gi, '');
    if (schema && migrate) {
      const admin = new pg.Client({ connectionString: options.databaseUrl });
      await admin.connect();
      try {
        await admin.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      } finally {
        await admin.end();
      }
    }
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      ...(schema ? { options: `-c search_path=${schema}` } : {}),
    });
    kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log });
    location = { dialect: 'postgres', url: options.databaseUrl, ...(schema ? { schema } : {}) };
  } else {
    dialect = 'sqlite';
    const dataDir = options.dataDir ?? './data';
    const file = options.sqliteFile ?? join(dataDir, 'maskwright.sqlite');
    if (!options.sqliteFile) mkdirSync(dataDir, { recursive: true });
    location = { dialect: 'sqlite', file };
    // Credits live here: WAL for concurrent readers, FULL sync so a committed charge or refund
    // survives power loss. A second connection keeps NORMAL sync for the relaxed transactions:
    // SQLite's safety level cannot change inside a transaction, and a connection that waits for the
    // write lock lends itself out meanwhile, so a level lowered around one transaction could reach
    // another. Both share the WAL, so the next durable commit makes a relaxed one durable too.
    const open = (synchronous: 'FULL' | 'NORMAL') => {
      const sqlite = new SQLite(file);
      sqlite.pragma('journal_mode = WAL');
      sqlite.pragma(`synchronous = ${synchronous}`);
      sqlite.pragma('foreign_keys = ON');
      return new Kysely<Database>({ dialect: new LockWaitingSqliteDialect(sqlite), log });
    };
    kysely = open('FULL');
    relaxedKysely = open('NORMAL');
  }
  const schema =
    migrate && dialect === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(kysely)).rows[0]?.schema
      : undefined;
  if (migrate) await migrateToLatest(kysely, schema);
  const transaction = <T>(fn: (trx: Transaction<Database>) => Promise<T>, durability: Durability = 'durable'): Promise<T> => {
    if (durability === 'durable') return kysely.transaction().execute(fn);
    if (dialect === 'postgres') {
      return kysely.transaction().execute(async (trx) => {
        await sql`SET LOCAL synchronous_commit = off`.execute(trx);
        return fn(trx);
      });
    }
    return relaxedKysely!.transaction().execute(fn);
  };
  const observeQueries = (observer: (sql: string) => void) => {
    observers.add(observer);
    return () => void observers.delete(observer);
  };
  const close = async () => {
    await relaxedKysely?.destroy();
    await kysely.destroy();
  };
  return { kysely, dialect, location, transaction, observeQueries, close };
}
