import { createHash, type Hash } from 'node:crypto';

/** JSON with object keys sorted at every level, so equal requests hash equally whatever the key order. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/**
 * Feeds the same canonical form to a hash without building it: strings go in length-prefixed
 * (unambiguous, and no JSON escaping of a 2 MB image), keys sorted at every level.
 */
function hashCanonical(hash: Hash, value: unknown): void {
  if (value === undefined || value === null) hash.update('z');
  else if (typeof value === 'string') hash.update(`s${value.length}:`).update(value);
  else if (typeof value === 'number' || typeof value === 'boolean') hash.update(`${typeof value === 'number' ? 'n' : 'b'}${String(value)};`);
  else if (Array.isArray(value)) {
    hash.update(`a${value.length}[`);
    for (const item of value) hashCanonical(hash, item);
    hash.update(']');
  } else if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    hash.update(`o${entries.length}{`);
    for (const [key, item] of entries) {
      hash.update(`k${key.length}:`).update(key);
      hashCanonical(hash, item);
    }
    hash.update('}');
  } else hash.update(`?${String(value)};`);
}

/** Request fingerprint: method + path + canonical (validated, defaults applied) body. */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  const hash = createHash('sha256').update(`${method.toUpperCase()} ${path}\n`);
  hashCanonical(hash, body);
  return hash.digest('hex');
}

/** Digest of a request as sent: method + path + the body's bytes (see AttemptsTable.body_digest). */
export function bodyDigest(method: string, path: string, bytes: Uint8Array): string {
  return createHash('sha256').update(`${method.toUpperCase()} ${path}\n`).update(bytes).digest('hex');
}
