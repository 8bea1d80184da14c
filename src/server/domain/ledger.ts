/**
 * The append-only credit ledger. A balance change happens only together with the entry that
 * explains it, in the same transaction; (kind, reference) is unique, so each grant, purchase,
 * charge and refund is applied at most once whoever retries it.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database, LedgerKind } from '../db/schema';
import { DomainError } from './errors';
import { newId } from './ids';

export interface LedgerEntryInput {
  accountId: string;
  amount: number;
  kind: LedgerKind;
  reference: string;
  now: number;
}

/** Returns false (and changes nothing) if this (kind, reference) was already applied. */
export async function applyLedgerEntry(trx: Transaction<Database>, entry: LedgerEntryInput): Promise<boolean> {
  const inserted = await trx
    .insertInto('ledger_entries')
    .values({
      id: newId('led'),
      account_id: entry.accountId,
      amount: entry.amount,
      kind: entry.kind,
      reference: entry.reference,
      created_at: entry.now,
    })
    .onConflict((oc) => oc.columns(['kind', 'reference']).doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return false;
  const updated = await trx
    .updateTable('accounts')
    .set({ balance: sql`balance + ${entry.amount}` })
    .where('id', '=', entry.accountId)
    .where(sql<boolean>`balance + ${entry.amount} >= 0`)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) !== 1) {
    // The caller's transaction rolls back, taking the entry with it.
    throw new DomainError('insufficient-credits');
  }
  return true;
}

export async function balanceOf(db: Kysely<Database>, accountId: string): Promise<number> {
  const row = await db.selectFrom('accounts').select('balance').where('id', '=', accountId).executeTakeFirst();
  return row?.balance ?? 0;
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
