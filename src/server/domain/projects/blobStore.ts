/**
 * Where image bytes live, named by their SHA-256: stored once however many images (in however many
 * projects and accounts) are that file. The `blobs` row (digest, size) is written in the caller's
 * transaction, so an image row never names bytes that are not there:
 * - PostgreSQL: the bytes go into `blob_data` in that same transaction (any process serves them);
 * - SQLite: the bytes go into a file under DATA_DIR first (written aside, flushed, renamed into
 *   place), then the transaction commits the rows. A crash in between leaves at most an unnamed
 *   file, never a row without its bytes.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema';
import type { Db } from '../../db/connect';
import { newId } from '../ids';

export interface BlobStore {
  /** Makes the bytes durable outside any transaction, where the store needs that (files). */
  prepare(digest: string, bytes: Uint8Array): Promise<void>;
  /** Records the blob inside the transaction that adds the image naming it; idempotent. */
  record(trx: Transaction<Database>, digest: string, bytes: Uint8Array, now: number): Promise<void>;
  read(digest: string): Promise<Uint8Array | undefined>;
}

async function recordRow(trx: Transaction<Database>, digest: string, size: number, now: number): Promise<boolean> {
  const inserted = await trx
    .insertInto('blobs')
    .values({ digest, size, created_at: now })
    .onConflict((c) => c.column('digest').doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
}

export class FileBlobStore implements BlobStore {
  constructor(private readonly dir: string) {}

  private path(digest: string): string {
    return join(this.dir, digest.slice(0, 2), digest);
  }

  /**
   * Written even when the file is there already (the same bytes replace themselves): an upload of a
   * file another account stored first must cost what a new file costs, or its time would tell.
   */
  async prepare(digest: string, bytes: Uint8Array): Promise<void> {
    const target = this.path(digest);
    mkdirSync(join(this.dir, digest.slice(0, 2)), { recursive: true });
    const aside = `${target}.${newId('tmp')}`;
    const fd = openSync(aside, 'w');
    try {
      writeSync(fd, bytes);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(aside, target);
  }

  async record(trx: Transaction<Database>, digest: string, bytes: Uint8Array, now: number): Promise<void> {
    await recordRow(trx, digest, bytes.byteLength, now);
  }

  async read(digest: string): Promise<Uint8Array | undefined> {
    const path = this.path(digest);
    return existsSync(path) ? new Uint8Array(readFileSync(path)) : undefined;
  }
}

export class DatabaseBlobStore implements BlobStore {
  constructor(private readonly db: Db) {}

  async prepare(): Promise<void> {}

  async record(trx: Transaction<Database>, digest: string, bytes: Uint8Array, now: number): Promise<void> {
    await recordRow(trx, digest, bytes.byteLength, now);
    // The bytes are written whether or not another account stored them first: the same work either
    // way, so an upload's time does not tell whether the file was on the server.
    await trx
      .insertInto('blob_data')
      .values({ digest, data: bytes })
      .onConflict((c) => c.column('digest').doUpdateSet({ data: bytes }))
      .execute();
  }

  async read(digest: string): Promise<Uint8Array | undefined> {
    const row = await this.db.kysely.selectFrom('blob_data').select('data').where('digest', '=', digest).executeTakeFirst();
    return row ? new Uint8Array(row.data) : undefined;
  }
}

export function blobStoreFor(db: Db, dataDir: string): BlobStore {
  return db.dialect === 'postgres' ? new DatabaseBlobStore(db) : new FileBlobStore(join(dataDir, 'blobs'));
}
