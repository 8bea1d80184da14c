/**
 * Where an account has logged in before: devices (a random token in an httpOnly cookie, given at
 * sign-up and at each login) and client addresses. The login throttle trusts them more than a
 * stranger (authThrottles.ts): wrong passwords sent from many addresses can hold an account's
 * strangers back, never the owner's own device. Rows are found by a SHA-256 of the account and the
 * token or address, so neither is stored in the clear, and forgotten after `rememberForMs` unused.
 */
import { createHash } from 'node:crypto';
import type { Db } from '../db/connect';
import type { Clock } from './clock';
import { randomSecret } from './ids';

/** How long a device or address stays known without a login from it. */
export const KNOWN_LOGIN_TTL_MS = 90 * 24 * 60 * 60 * 1000;
/** What a device token looks like (randomSecret(32)); anything else is no token. */
const DEVICE_TOKEN = /^[A-Za-z0-9_-]{43}$/;

export type Recognised = 'device' | 'address' | null;

const rowId = (kind: 'device' | 'address', account: string, value: string) => createHash('sha256').update(`${kind}\u0000${account}\u0000${value}`).digest('base64url');

export class KnownLogins {
  private writesSinceSweep = 0;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly rememberForMs = KNOWN_LOGIN_TTL_MS,
  ) {}

  /** The strongest proof this attempt comes from where the account logged in before: its device, its address, or none. */
  async recognise(account: string, address: string, deviceToken: string | undefined): Promise<Recognised> {
    const device = deviceToken && DEVICE_TOKEN.test(deviceToken) ? rowId('device', account, deviceToken) : undefined;
    const ids = [rowId('address', account, address), ...(device ? [device] : [])];
    const rows = await this.db.kysely
      .selectFrom('known_logins')
      .select('id')
      .where('id', 'in', ids)
      .where('last_at', '>=', this.clock.now() - this.rememberForMs)
      .execute();
    const found = new Set(rows.map((r) => r.id));
    if (device && found.has(device)) return 'device';
    return found.has(ids[0]) ? 'address' : null;
  }

  /** A login (or sign-up) succeeded: its address and device are known from now on. Answers the device's token (a new one unless it had a valid one). */
  async remember(account: string, address: string, deviceToken: string | undefined): Promise<string> {
    const token = deviceToken && DEVICE_TOKEN.test(deviceToken) ? deviceToken : randomSecret(32);
    const now = this.clock.now();
    for (const id of [rowId('address', account, address), rowId('device', account, token)]) {
      await this.db.kysely
        .insertInto('known_logins')
        .values({ id, last_at: now })
        .onConflict((c) => c.column('id').doUpdateSet({ last_at: now }))
        .execute();
    }
    if (++this.writesSinceSweep >= 256) {
      this.writesSinceSweep = 0;
      await this.db.kysely.deleteFrom('known_logins').where('last_at', '<', now - this.rememberForMs).execute();
    }
    return token;
  }
}
