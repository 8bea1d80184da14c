/**
 * The append-only credit ledger. A balance change happens only together with the entry that
 * explains it, in the same transaction; (kind, reference) is unique, so each grant, purchase,
 * charge and refund is applied at most once whoever retries it.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database, LedgerKind } from '../db/schema';
import { preparedQuery } from '../db/prepared';
import { DomainError } from './errors';
import { newId } from './ids';

export interface LedgerEntryInput {
  accountId: string;
  amount: number;
  kind: LedgerKind;
  reference: string;
  now: number;
}

const insertEntry = preparedQuery<[id: string, accountId: string, amount: number, kind: LedgerKind, reference: string, now: number]>((db, $) =>
  db
    .insertInto('ledger_entries')
    .values({ id: $(0), account_id: $(1), amount: $(2), kind: $(3), reference: $(4), created_at: $(5) })
    .onConflict((oc) => oc.columns(['kind', 'reference']).doNothing()),
);
const moveBalance = preparedQuery<[amount: number, accountId: string]>((db, $) =>
  db
    .updateTable('accounts')
    .set({ balance: sql`balance + ${$(0)}` })
    .where('id', '=', $(1))
    .where(sql<boolean>`balance + ${$(0)} >= 0`),
);

/**
 * Returns false (and changes nothing) if this (kind, reference) was already applied. `root`: the
 * database `trx` belongs to; the statements are compiled once per database, not per transaction.
 */
export async function applyLedgerEntry(trx: Transaction<Database>, entry: LedgerEntryInput, root: Kysely<Database>): Promise<boolean> {
  const inserted = await insertEntry.run(root, trx, newId('led'), entry.accountId, entry.amount, entry.kind, entry.reference, entry.now);
  if (Number(inserted.numAffectedRows ?? 0) === 0) return false;
  const updated = await moveBalance.run(root, trx, entry.amount, entry.accountId);
  if (Number(updated.numAffectedRows ?? 0) !== 1) {
    // The caller's transaction rolls back, taking the entry with it.
    throw new DomainError('insufficient-credits');
  }
  return true;
}

const balanceQuery = preparedQuery<[accountId: string], { balance: number }>((db, $) =>
  db.selectFrom('accounts').select('balance').where('id', '=', $(0)),
);

/** The account's balance as last committed (0 for no such account). */
export async function balanceOf(db: Kysely<Database>, accountId: string): Promise<number> {
  const [row] = (await balanceQuery.run(db, db, accountId)).rows;
  return row ? Number(row.balance) : 0;
}

/** Accounts whose cached balance differs from the sum of their entries (should always be empty). */
export async function ledgerMismatches(
  db: Kysely<Database>,
): Promise<{ accountId: string; balance: number; ledgerSum: number }[]> {
  const rows = await db
    .selectFrom('accounts as a')
    .leftJoin('ledger_entries as l', 'l.account_id', 'a.id')
    .select(['a.id', 'a.balance', sql<number>`coalesce(sum(l.amount), 0)`.as('ledger_sum')])
    .groupBy(['a.id', 'a.balance'])
    .execute();
  return rows
    .map((r) => ({ accountId: r.id, balance: Number(r.balance), ledgerSum: Number(r.ledger_sum) }))
    .filter((r) => r.balance !== r.ledgerSum || r.balance < 0);
}
