/**
 * Reads the server's database directly (never through the server) to check the credit invariants:
 * balance = sum of ledger entries, never negative; each refund undoes exactly one charge of the same
 * attempt; nothing left half-done. Table names follow src/server/db/schema.ts.
 */
import Database from 'better-sqlite3';
import path from 'node:path';
import type { ScratchDatabase } from './postgres';

export interface DirectDb {
  readonly dialect: 'postgres' | 'sqlite';
  all<Row = Record<string, unknown>>(sql: string): Promise<Row[]>;
  close(): Promise<void>;
}

export function directPostgres(db: ScratchDatabase): DirectDb {
  return { dialect: 'postgres', all: (sql) => db.query(sql) as never, close: async () => undefined };
}

/** Read-only connection to the SQLite file a server process keeps in DATA_DIR. */
export function directSqlite(dataDir: string): DirectDb {
  const file = path.join(dataDir, 'maskwright.sqlite');
  let connection: Database.Database | undefined;
  const open = () => (connection ??= new Database(file, { readonly: true, fileMustExist: true }));
  return {
    dialect: 'sqlite',
    all: async (sql) => open().prepare(sql).all() as never,
    close: async () => {
      connection?.close();
      connection = undefined;
    },
  };
}

export interface LedgerReport {
  readonly mismatches: Array<{ account_id: string; balance: number; ledger_sum: number }>;
  /** Refund entries whose attempt has no charge, or whose amount does not undo it. */
  readonly orphanRefunds: Array<{ reference: string; amount: number }>;
  /** Attempts charged and never refunded although their stored answer is not a success. */
  readonly chargedFailures: Array<{ id: string; state: string; response_status: number | null }>;
}

export async function ledgerReport(db: DirectDb): Promise<LedgerReport> {
  const mismatches = await db.all<{ account_id: string; balance: number; ledger_sum: number }>(`
    SELECT a.id AS account_id, a.balance AS balance, COALESCE(SUM(l.amount), 0) AS ledger_sum
    FROM accounts a LEFT JOIN ledger_entries l ON l.account_id = a.id
    GROUP BY a.id, a.balance
    HAVING a.balance <> COALESCE(SUM(l.amount), 0) OR a.balance < 0`);
  const orphanRefunds = await db.all<{ reference: string; amount: number }>(`
    SELECT r.reference AS reference, r.amount AS amount
    FROM ledger_entries r LEFT JOIN ledger_entries c ON c.kind = 'charge' AND c.reference = r.reference
    WHERE r.kind = 'refund' AND (c.id IS NULL OR c.amount + r.amount <> 0 OR c.account_id <> r.account_id)`);
  const chargedFailures = await db.all<{ id: string; state: string; response_status: number | null }>(`
    SELECT t.id AS id, t.state AS state, t.response_status AS response_status
    FROM attempts t
    JOIN ledger_entries c ON c.kind = 'charge' AND c.reference = t.id
    LEFT JOIN ledger_entries r ON r.kind = 'refund' AND r.reference = t.id
    WHERE r.id IS NULL AND t.state = 'completed' AND t.response_status <> 200`);
  return {
    mismatches: mismatches.map((m) => ({ ...m, balance: Number(m.balance), ledger_sum: Number(m.ledger_sum) })),
    orphanRefunds: orphanRefunds.map((r) => ({ ...r, amount: Number(r.amount) })),
    chargedFailures,
  };
}

/** Throws with the offending rows when any invariant is broken. */
export async function assertLedgerConsistent(db: DirectDb): Promise<void> {
  const report = await ledgerReport(db);
  const broken = Object.entries(report).filter(([, rows]) => (rows as unknown[]).length > 0);
  if (broken.length > 0) throw new Error(`ledger invariant broken: ${JSON.stringify(Object.fromEntries(broken), null, 2)}`);
}

export interface AccountLedger {
  readonly balance: number;
  readonly entries: Array<{ kind: string; amount: number; reference: string }>;
  readonly charges: number;
  readonly refunds: number;
}

export async function accountLedger(db: DirectDb, email: string): Promise<AccountLedger> {
  const quoted = `'${email.replace(/'/g, "''")}'`;
  const [account] = await db.all<{ id: string; balance: number }>(`SELECT id, balance FROM accounts WHERE email = ${quoted}`);
  if (!account) throw new Error(`no account ${email}`);
  const entries = (
    await db.all<{ kind: string; amount: number; reference: string }>(
      `SELECT kind, amount, reference FROM ledger_entries WHERE account_id = '${account.id}' ORDER BY created_at, id`,
    )
  ).map((e) => ({ ...e, amount: Number(e.amount) }));
  return {
    balance: Number(account.balance),
    entries,
    charges: entries.filter((e) => e.kind === 'charge').length,
    refunds: entries.filter((e) => e.kind === 'refund').length,
  };
}

/** Attempts not yet at a final state: charged-but-unanswered or waiting for their refund. */
export async function unsettledAttempts(db: DirectDb): Promise<Array<{ id: string; state: string }>> {
  return db.all(`SELECT id, state FROM attempts WHERE state IN ('charged', 'refund_pending')`);
}
