/**
 * A Kysely driver for one better-sqlite3 connection that waits for another connection's write lock
 * without blocking its thread.
 *
 * better-sqlite3 runs each statement synchronously, and SQLite's busy handler (`busy_timeout`)
 * waits for a lock by sleeping the calling thread. On the server's event loop that sleep stops
 * every request of every account while a project worker thread or another process holds the write
 * lock. So the connection runs with `busy_timeout = 0`: a statement refused with SQLITE_BUSY outside
 * a transaction (a `BEGIN IMMEDIATE`, or a write on its own) had no effect, and is run again after a
 * timer. Between tries the connection is handed to whoever waits for it, so reads (never blocked
 * in WAL mode) and other requests go on meanwhile.
 *
 * Transactions keep their meaning: `BEGIN IMMEDIATE` takes the write lock before the first
 * statement, so nothing inside a transaction waits for it, and a statement refused inside one is
 * never retried on its own.
 */
import type SQLite from 'better-sqlite3';
import { CompiledQuery, type DatabaseConnection, type Driver, type QueryResult, type SqliteDatabase } from 'kysely';

export interface LockWaitOptions {
  /** The longest a statement waits for the write lock before its SQLITE_BUSY is thrown. */
  maxWaitMs: number;
}

const firstPauseMs = 1;
// Long enough not to spin against a long write, short enough that a freed lock is taken soon.
const longestPauseMs = 25;

/** SQLite's "another connection holds the lock" (SQLITE_BUSY and its extended codes). */
export function isLockBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/** One holder at a time, the others in arrival order. */
class Turns {
  #held = false;
  readonly #waiting: Array<() => void> = [];

  take(): Promise<void> {
    if (!this.#held) {
      this.#held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  give(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#held = false;
  }
}

class LockWaitingConnection implements DatabaseConnection {
  constructor(
    private readonly handle: SQLite.Database,
    private readonly statements: SqliteDatabase,
    private readonly turns: Turns,
    private readonly options: LockWaitOptions,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const started = Date.now();
    let pauseMs = firstPauseMs;
    for (;;) {
      try {
        return this.runOnce<R>(query);
      } catch (error) {
        const mayRetry = isLockBusy(error) && !this.handle.inTransaction && Date.now() - started + pauseMs <= this.options.maxWaitMs;
        if (!mayRetry) throw error;
      }
      // The caller holds the connection; lend it out while this statement waits.
      this.turns.give();
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
      await this.turns.take();
      pauseMs = Math.min(pauseMs * 2, longestPauseMs);
    }
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    const statement = this.statements.prepare(query.sql);
    for (const row of statement.iterate(query.parameters as unknown[])) yield { rows: [row as R] };
  }

  private runOnce<R>(query: CompiledQuery): QueryResult<R> {
    const statement = this.statements.prepare(query.sql);
    const parameters = query.parameters as unknown[];
    if (statement.reader) return { rows: statement.all(parameters) as R[] };
    const { changes, lastInsertRowid } = statement.run(parameters);
    return {
      numAffectedRows: changes === undefined || changes === null ? undefined : BigInt(changes),
      insertId: lastInsertRowid === undefined || lastInsertRowid === null ? undefined : BigInt(lastInsertRowid),
      rows: [],
    };
  }
}

/**
 * The driver: `handle` is the connection (its busy timeout is set to 0 here), `statements` what
 * prepares on it (a statement cache, connect.ts). Transactions begin IMMEDIATE.
 */
export class LockWaitingSqliteDriver implements Driver {
  readonly #handle: SQLite.Database;
  readonly #turns = new Turns();
  readonly #connection: LockWaitingConnection;

  constructor(handle: SQLite.Database, statements: SqliteDatabase, options: LockWaitOptions) {
    this.#handle = handle;
    this.#connection = new LockWaitingConnection(handle, statements, this.#turns, options);
  }

  async init(): Promise<void> {
    this.#handle.pragma('busy_timeout = 0');
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.#turns.take();
    return this.#connection;
  }

  async releaseConnection(): Promise<void> {
    this.#turns.give();
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async destroy(): Promise<void> {
    this.#handle.close();
  }
}
