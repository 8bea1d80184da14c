/**
 * The two storage back ends a suite can run against: embedded SQLite (the zero-configuration default,
 * always available) and PostgreSQL (the scale-out deployment; needs a reachable server).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createScratchDatabase, type ScratchDatabase } from './postgres';
import { directPostgres, directSqlite, type DirectDb } from './ledger';

export type BackendKind = 'sqlite' | 'postgres';

export interface Backend {
  readonly kind: BackendKind;
  /** Environment that points a server process at this storage. */
  readonly env: Record<string, string>;
  readonly db: DirectDb;
  readonly scratch?: ScratchDatabase;
  dispose(): Promise<void>;
}

export async function createBackend(kind: BackendKind, suiteName: string): Promise<Backend> {
  if (kind === 'postgres') {
    const scratch = await createScratchDatabase(suiteName);
    const db = directPostgres(scratch);
    return {
      kind,
      env: { DATABASE_URL: scratch.url },
      db,
      scratch,
      dispose: () => scratch.drop(),
    };
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), `mw-rel-${suiteName}-`));
  const db = directSqlite(dataDir);
  return {
    kind,
    env: { DATA_DIR: dataDir, DATABASE_URL: '' },
    db,
    async dispose() {
      await db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
