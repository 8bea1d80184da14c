import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from './connect';
import { isLockBusy } from './lockWaitingSqlite';

/** Lets timers run: it resolves only if the event loop is free to fire one. */
const turnOfTheEventLoop = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('SQLite writes while another connection holds the write lock', () => {
  const dirs: string[] = [];
  const closers: Array<() => unknown> = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /** The server's database, and a second connection (a project worker thread's, another process's) holding its write lock. */
  async function databaseWithLockHeldElsewhere(): Promise<{ db: Db; holder: SQLite.Database }> {
    const dir = mkdtempSync(join(tmpdir(), 'mw-lock-wait-'));
    dirs.push(dir);
    const file = join(dir, 'db.sqlite');
    const db = await openDatabase({ sqliteFile: file });
    closers.push(() => db.close());
    const holder = new SQLite(file);
    closers.push(() => holder.close());
    holder.exec('begin immediate');
    return { db, holder };
  }

  const account = (id: string) => ({ id, email: `${id}@example.test`, password_hash: 'x', balance: 1, created_at: 0 });
  const settledState = (promise: Promise<unknown>) => {
    const state = { settled: false };
    promise.then(
      () => (state.settled = true),
      () => (state.settled = true),
    );
    return state;
  };

  it('a transaction waits without holding the event loop, and commits once the lock is free', async () => {
    const { db, holder } = await databaseWithLockHeldElsewhere();
    const write = db.transaction((trx) => trx.insertInto('accounts').values(account('a')).execute());
    const state = settledState(write);
    await turnOfTheEventLoop();
    expect(state.settled).toBe(false);
    holder.exec('commit');
    await write;
    expect(await db.kysely.selectFrom('accounts').select('id').execute()).toEqual([{ id: 'a' }]);
  });

  it('a write outside a transaction and a relaxed transaction wait the same way', async () => {
    const { db, holder } = await databaseWithLockHeldElsewhere();
    const lone = db.kysely.insertInto('accounts').values(account('lone')).execute();
    const relaxed = db.transaction((trx) => trx.insertInto('accounts').values(account('relaxed')).execute(), 'relaxed');
    const states = [settledState(lone), settledState(relaxed)];
    await turnOfTheEventLoop();
    expect(states.map((state) => state.settled)).toEqual([false, false]);
    holder.exec('commit');
    await Promise.all([lone, relaxed]);
    expect((await db.kysely.selectFrom('accounts').select('id').orderBy('id').execute()).map((row) => row.id)).toEqual(['lone', 'relaxed']);
  });

  it('reads on the same connection answer while a write waits for the lock (a health probe is not queued behind it)', async () => {
    const { db, holder } = await databaseWithLockHeldElsewhere();
    const write = db.transaction((trx) => trx.insertInto('accounts').values(account('w')).execute());
    const state = settledState(write);
    await turnOfTheEventLoop();
    expect(await db.kysely.selectFrom('accounts').select('id').execute()).toEqual([]);
    expect(state.settled).toBe(false);
    holder.exec('commit');
    await write;
  });

  it('a transaction that fails after taking the lock rolls back whole, and is not run again', async () => {
    const { db, holder } = await databaseWithLockHeldElsewhere();
    let runs = 0;
    const failing = db.transaction(async (trx) => {
      runs += 1;
      await trx.insertInto('accounts').values(account('x')).execute();
      await trx.insertInto('accounts').values(account('x')).execute(); // duplicate key
    });
    await turnOfTheEventLoop();
    holder.exec('commit');
    await expect(failing).rejects.toThrow(/UNIQUE/);
    expect(runs).toBe(1);
    expect(await db.kysely.selectFrom('accounts').select('id').execute()).toEqual([]);
  });
});

describe('isLockBusy', () => {
  it('knows SQLite busy errors, extended codes included, and nothing else', () => {
    expect([{ code: 'SQLITE_BUSY' }, { code: 'SQLITE_BUSY_RECOVERY' }, { code: 'SQLITE_CONSTRAINT' }, new Error('x'), null].map(isLockBusy)).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
  });
});
