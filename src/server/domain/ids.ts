import { createHash, randomBytes } from 'node:crypto';

/** Time-ordered, unguessable id: `<prefix>_<ms base36><random>`. */
export function newId(prefix: string): string {
  return `${prefix}_${Date.now().toString(36).padStart(9, '0')}${randomBytes(10).toString('hex')}`;
}

/**
 * An id that says nothing but itself: `<prefix>_<random>`. For what other accounts may come to see
 * (project and image ids in shared links), where a time in the id would tell when it was made.
 */
export function opaqueId(prefix: string): string {
  return `${prefix}_${randomBytes(16).toString('base64url')}`;
}

export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

export function sha256Hex(value: string | Uint8Array): string {
  return createHash('sha256').update(value).digest('hex');
}
