import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, withStatementCache } from './connect';

describe('withStatementCache', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('compiles each statement once and keeps at most `capacity`, least recently used out', () => {
    const raw = new SQLite(':memory:');
    let compiled = 0;
    const prepare = raw.prepare.bind(raw);
    raw.prepare = ((source: string) => {
      compiled += 1;
      return prepare(source);
    }) as typeof raw.prepare;
    const cached = withStatementCache(raw, 2);
    const a = cached.prepare('select 1');
    expect(cached.prepare('select 1')).toBe(a);
    cached.prepare('select 2');
    cached.prepare('select 1'); // most recently used again
    cached.prepare('select 3'); // evicts 'select 2'
    expect(cached.prepare('select 1')).toBe(a);
    expect(compiled).toBe(3);
    cached.prepare('select 2');
    expect(compiled).toBe(4);
    cached.close();
  });

  it('gives correct results through Kysely when the same statements run again with other parameters', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mw-stmt-cache-'));
    dirs.push(dir);
    const db = await openDatabase({ sqliteFile: join(dir, 'db.sqlite') });
    try {
      for (const [id, balance] of [['a', 1], ['b', 2], ['c', 3]] as const) {
        await db.kysely.insertInto('accounts').values({ id, email: `${id}@example.test`, password_hash: 'x', balance, created_at: 0 }).execute();
      }
      const balanceOf = async (id: string) =>
        (await db.kysely.selectFrom('accounts').select('balance').where('id', '=', id).executeTakeFirst())?.balance;
      expect([await balanceOf('a'), await balanceOf('b'), await balanceOf('c'), await balanceOf('zz')]).toEqual([1, 2, 3, undefined]);
      await db.transaction(async (trx) => trx.updateTable('accounts').set({ balance: 9 }).where('id', '=', 'b').execute());
      await expect(
        db.transaction(async (trx) => {
          await trx.updateTable('accounts').set({ balance: 7 }).where('id', '=', 'c').execute();
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect([await balanceOf('b'), await balanceOf('c')]).toEqual([9, 3]);
    } finally {
      await db.close();
    }
  });
});
