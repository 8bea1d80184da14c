/**
 * The idempotency rules of a metered call, whatever pays for it: given what is stored under the
 * call's key, is this a new call, a replay of a stored answer, or a conflict? Pure: the payment
 * methods read the rows and describe them as a `StoredKey`; the runner turns conflicts into 409s.
 */

/**
 * Where a key is looked up: an Idempotency-Key, the unkeyed reuse window, a signed payment, or the
 * content of the request (an embedding of one photo: X-Force-Refresh does not apply to it).
 */
export type KeyScope = 'explicit' | 'implicit' | 'payment' | 'content';

/** The key's row and its call's, as the rules see them. */
export interface StoredKey<Stored> {
  /** Fingerprint of the request the key was claimed for. */
  fingerprint: string;
  /** null while the call runs; then when its answer stops being reused. */
  expiresAt: number | null;
  /**
   * running: claimed, not finished; refund-pending: finished, money still owed back;
   * answered: a stored answer that is replayed; open: nothing to reuse, the key may be taken again.
   */
  status: 'running' | 'refund-pending' | 'answered' | 'open';
  /** Past this a running call counts as abandoned (its process died); absent: recovery decides. */
  leaseUntil?: number;
  /** Scope 'payment': the stored call was paid by exactly this payload (not only this authorization). */
  samePayload?: boolean;
  stored: Stored;
}

export interface Asking {
  scope: KeyScope;
  fingerprint: string;
  forceRefresh: boolean;
  now: number;
}

export type Conflict = 'key-reused' | 'in-progress' | 'refund-pending' | 'payment-used';

export type Decision<Stored> = { kind: 'new' } | { kind: 'replay'; stored: Stored } | { kind: 'conflict'; conflict: Conflict };

export function decide<Stored>(existing: StoredKey<Stored> | undefined, asking: Asking): Decision<Stored> {
  if (!existing) return { kind: 'new' };
  if (existing.expiresAt !== null && existing.expiresAt <= asking.now) return { kind: 'new' };
  // An explicit key beats X-Force-Refresh; force-refresh only bypasses the unkeyed reuse.
  if (asking.scope === 'implicit' && asking.forceRefresh) return { kind: 'new' };
  if (existing.status === 'running' && existing.leaseUntil !== undefined && existing.leaseUntil < asking.now) return { kind: 'new' };
  // A signed authorization belongs to the request it was first sent with, and only the exact
  // payload that paid gets the stored answer: the authorization alone is public once on chain.
  if (asking.scope === 'payment' && (existing.fingerprint !== asking.fingerprint || (existing.status === 'answered' && !existing.samePayload))) {
    return { kind: 'conflict', conflict: 'payment-used' };
  }
  if (existing.fingerprint !== asking.fingerprint) return { kind: 'conflict', conflict: 'key-reused' };
  if (existing.status === 'running') return { kind: 'conflict', conflict: 'in-progress' };
  if (existing.status === 'refund-pending') return { kind: 'conflict', conflict: 'refund-pending' };
  if (existing.status === 'answered') return { kind: 'replay', stored: existing.stored };
  return { kind: 'new' };
}
