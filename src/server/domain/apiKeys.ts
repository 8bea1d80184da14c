/**
 * API keys: `mwk_` + 43 base64url characters (256 random bits). Only the SHA-256 of the key is
 * stored; the prefix (first 12 characters) is kept so people can recognise their keys.
 */
import type { Db } from '../db/connect';
import type { Clock } from './clock';
import { DomainError } from './errors';
import { newId, randomSecret, sha256Hex } from './ids';
import { preparedQuery } from '../db/prepared';

/** Every key starts with it (the README's examples too: test/docs/readmeExamples.test.ts). */
export const KEY_PREFIX = 'mwk_';
const DISPLAY_PREFIX_LENGTH = 12;

export interface ApiKeyCreatedView {
  id: string;
  key: string;
  prefix: string;
  createdAt: string;
}

export interface ApiKeyView {
  id: string;
  prefix: string;
  createdAt: string;
}

/**
 * Every metered request runs it: compiled once (db/prepared.ts). The balance comes along for free:
 * a metered call needs to know, before its engine run starts, whether the account has any credit.
 */
const accountOfKey = preparedQuery<[keyHash: string], { account_id: string; balance: number }>((db, $) =>
  db
    .selectFrom('api_keys as k')
    .innerJoin('accounts as a', 'a.id', 'k.account_id')
    .select(['k.account_id', 'a.balance'])
    .where('k.key_hash', '=', $(0))
    .where('k.revoked_at', 'is', null),
);

/** Who a valid key belongs to, and that account's balance as last committed (a hint: the charge decides). */
export interface KeyHolder {
  accountId: string;
  balance: number;
}

export class ApiKeys {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  private mint(): { key: string; prefix: string; keyHash: string } {
    const key = `${KEY_PREFIX}${randomSecret(32)}`;
    return { key, prefix: key.slice(0, DISPLAY_PREFIX_LENGTH), keyHash: sha256Hex(key) };
  }

  async create(accountId: string): Promise<ApiKeyCreatedView> {
    const { key, prefix, keyHash } = this.mint();
    const now = this.clock.now();
    const id = newId('key');
    await this.db.kysely
      .insertInto('api_keys')
      .values({ id, account_id: accountId, prefix, key_hash: keyHash, created_at: now, revoked_at: null, replaced_by: null })
      .execute();
    return { id, key, prefix, createdAt: new Date(now).toISOString() };
  }

  async list(accountId: string): Promise<ApiKeyView[]> {
    const rows = await this.db.kysely
      .selectFrom('api_keys')
      .select(['id', 'prefix', 'created_at'])
      .where('account_id', '=', accountId)
      .where('revoked_at', 'is', null)
      .orderBy('created_at', 'asc')
      .execute();
    return rows.map((r) => ({ id: r.id, prefix: r.prefix, createdAt: new Date(r.created_at).toISOString() }));
  }

  /** The new key replaces the old one in one transaction: the old key fails from the commit on. */
  async rotate(accountId: string, keyId: string): Promise<ApiKeyCreatedView> {
    assertIssuedIdShape(keyId);
    const { key, prefix, keyHash } = this.mint();
    const now = this.clock.now();
    const id = newId('key');
    await this.db.transaction(async (trx) => {
      const revoked = await trx
        .updateTable('api_keys')
        .set({ revoked_at: now, replaced_by: id })
        .where('id', '=', keyId)
        .where('account_id', '=', accountId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (Number(revoked.numUpdatedRows) !== 1) throw new DomainError('not-found', 'no active API key with this id');
      await trx
        .insertInto('api_keys')
        .values({ id, account_id: accountId, prefix, key_hash: keyHash, created_at: now, revoked_at: null, replaced_by: null })
        .execute();
    });
    return { id, key, prefix, createdAt: new Date(now).toISOString() };
  }

  async revoke(accountId: string, keyId: string): Promise<void> {
    assertIssuedIdShape(keyId);
    const revoked = await this.db.kysely
      .updateTable('api_keys')
      .set({ revoked_at: this.clock.now() })
      .where('id', '=', keyId)
      .where('account_id', '=', accountId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (Number(revoked.numUpdatedRows) !== 1) throw new DomainError('not-found', 'no active API key with this id');
  }

  /** The account owning this key, or undefined for unknown, revoked or rotated-out keys. */
  async authenticate(key: string): Promise<KeyHolder | undefined> {
    if (!key.startsWith(KEY_PREFIX) || key.length > 100) return undefined;
    const [row] = (await accountOfKey.run(this.db.kysely, this.db.kysely, sha256Hex(key))).rows;
    return row && { accountId: row.account_id, balance: Number(row.balance) };
  }
}

/**
 * Ids are `key_` + base-36 time + hex (ids.ts). Anything else names no key; checking the shape first
 * also keeps bytes a database cannot store in text (NUL on PostgreSQL) out of the query.
 */
function assertIssuedIdShape(keyId: string): void {
  if (!/^key_[0-9a-z]{1,64}$/.test(keyId)) throw new DomainError('not-found', 'no active API key with this id');
}
