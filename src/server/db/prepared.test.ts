import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTempSqlite } from '../../../test/support/tempSqlite';
import { preparedQuery } from './prepared';

describe('preparedQuery', () => {
  const database = useTempSqlite('mw-prepared-');

  it('builds once, then binds each run’s arguments where the placeholders were, constants kept', async () => {
    const db = database();
    let builds = 0;
    const insert = preparedQuery<[id: string, email: string, balance: number]>((k, $) => {
      builds += 1;
      return k.insertInto('accounts').values({ id: $(0), email: $(1), password_hash: 'constant', balance: $(2), created_at: 7 });
    });
    await insert.run(db.kysely, db.kysely, 'p1', 'p1@example.test', 3);
    await insert.run(db.kysely, db.kysely, 'p2', 'p2@example.test', 4);
    expect(builds).toBe(1);
    const rows = await db.kysely.selectFrom('accounts').select(['id', 'email', 'password_hash', 'balance', 'created_at']).where('id', 'in', ['p1', 'p2']).orderBy('id').execute();
    expect(rows).toEqual([
      { id: 'p1', email: 'p1@example.test', password_hash: 'constant', balance: 3, created_at: 7 },
      { id: 'p2', email: 'p2@example.test', password_hash: 'constant', balance: 4, created_at: 7 },
    ]);
  });

  it('binds a placeholder used twice in both places, inside a transaction that rolls back as a whole', async () => {
    const db = database();
    const move = preparedQuery<[amount: number, id: string]>((k, $) =>
      k.updateTable('accounts').set({ balance: sql`balance + ${$(0)}` }).where('id', '=', $(1)).where(sql<boolean>`balance + ${$(0)} >= 0`),
    );
    const moved = await db.transaction(async (trx) => move.run(db.kysely, trx, -3, 'p1'));
    expect(Number(moved.numAffectedRows)).toBe(1);
    const refused = await move.run(db.kysely, db.kysely, -1, 'p1');
    expect(Number(refused.numAffectedRows)).toBe(0);
    await expect(
      db.transaction(async (trx) => {
        await move.run(db.kysely, trx, 10, 'p2');
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    const balances = await db.kysely.selectFrom('accounts').select(['id', 'balance']).where('id', 'in', ['p1', 'p2']).orderBy('id').execute();
    expect(balances).toEqual([{ id: 'p1', balance: 0 }, { id: 'p2', balance: 4 }]);
  });

  it('returns rows of a prepared select', async () => {
    const db = database();
    const byId = preparedQuery<[id: string], { email: string }>((k, $) => k.selectFrom('accounts').select('email').where('id', '=', $(0)));
    expect((await byId.run(db.kysely, db.kysely, 'p2')).rows).toEqual([{ email: 'p2@example.test' }]);
    expect((await byId.run(db.kysely, db.kysely, 'nobody')).rows).toEqual([]);
  });
});
