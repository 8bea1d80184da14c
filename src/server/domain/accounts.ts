/** Accounts and browser sessions. Passwords: Argon2id. Session tokens: stored only as SHA-256. */
import { hash, verify } from '@node-rs/argon2';
import { LIMITS } from '../../contract/limits';
import type { Db } from '../db/connect';
import type { Clock } from './clock';
import { DomainError } from './errors';
import { newId, randomSecret, sha256Hex } from './ids';
import { applyLedgerEntry } from './ledger';

export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** Argon2id (algorithm 2; the package's const enum cannot be imported under isolatedModules), OWASP parameters. */
const ARGON2_OPTIONS = { algorithm: 2 as const, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** Verified against when the email is unknown, so both failures take the same time. */
let dummyHash: Promise<string> | undefined;

export interface AccountView {
  id: string;
  email: string;
  credits: number;
}

export class Accounts {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async signup(email: string, password: string): Promise<{ account: AccountView; sessionToken: string }> {
    const passwordHash = await hash(password, ARGON2_OPTIONS);
    const now = this.clock.now();
    const id = newId('acct');
    try {
      await this.db.transaction(async (trx) => {
        await trx
          .insertInto('accounts')
          .values({ id, email, password_hash: passwordHash, balance: 0, created_at: now })
          .execute();
        await applyLedgerEntry(trx, { accountId: id, amount: LIMITS.signupCredits, kind: 'signup_grant', reference: id, now }, this.db.kysely);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new DomainError('email-taken');
      throw error;
    }
    const sessionToken = await this.createSession(id);
    return { account: { id, email, credits: LIMITS.signupCredits }, sessionToken };
  }

  async login(email: string, password: string): Promise<{ account: AccountView; sessionToken: string }> {
    const row = await this.db.kysely
      .selectFrom('accounts')
      .select(['id', 'email', 'password_hash', 'balance'])
      .where('email', '=', email)
      .executeTakeFirst();
    if (!row) {
      dummyHash ??= hash('not-a-real-password', ARGON2_OPTIONS);
      await verify(await dummyHash, password).catch(() => false);
      throw new DomainError('invalid-credentials');
    }
    const ok = await verify(row.password_hash, password).catch(() => false);
    if (!ok) throw new DomainError('invalid-credentials');
    const sessionToken = await this.createSession(row.id);
    return { account: { id: row.id, email: row.email, credits: row.balance }, sessionToken };
  }

  async createSession(accountId: string): Promise<string> {
    const token = randomSecret(32);
    const now = this.clock.now();
    await this.db.kysely
      .insertInto('sessions')
      .values({ token_hash: sha256Hex(token), account_id: accountId, created_at: now, expires_at: now + SESSION_TTL_MS })
      .execute();
    return token;
  }

  async accountForSession(token: string): Promise<string | undefined> {
    const row = await this.db.kysely
      .selectFrom('sessions')
      .select(['account_id', 'expires_at'])
      .where('token_hash', '=', sha256Hex(token))
      .executeTakeFirst();
    if (!row || row.expires_at <= this.clock.now()) return undefined;
    return row.account_id;
  }

  async logout(token: string): Promise<void> {
    await this.db.kysely.deleteFrom('sessions').where('token_hash', '=', sha256Hex(token)).execute();
  }

  async view(accountId: string): Promise<AccountView> {
    const row = await this.db.kysely
      .selectFrom('accounts')
      .select(['id', 'email', 'balance'])
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    return { id: row.id, email: row.email, credits: row.balance };
  }
}

export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
