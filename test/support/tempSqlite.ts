/** A real SQLite database in a folder of its own, migrated, for the tests of one file or `describe` block. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { openDatabase, type Db } from '../../src/server/db/connect';

/** Opens the database before the block's tests and removes it after them; the returned function gives it to a test. */
export function useTempSqlite(prefix: string): () => Db {
  let dir: string | undefined;
  let db: Db | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    db = await openDatabase({ sqliteFile: join(dir, 'db.sqlite') });
  });
  afterAll(async () => {
    await db?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    if (!db) throw new Error('the temporary database is opened in beforeAll: ask for it inside a test');
    return db;
  };
}
