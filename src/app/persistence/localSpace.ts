/**
 * Local spaces: what this browser keeps of each person's work, apart. The anonymous space is shared
 * by whoever uses the browser without signing in (as before accounts existed); each account has its
 * own space, sealed with AES-GCM under a key derived from the account's password at log-in. While the
 * person is signed in the key is kept in IndexedDB as a non-extractable CryptoKey (a reload or a new
 * tab opens the space without asking again); logging out deletes it, so the space's entries stay on
 * disk as ciphertext that only the same email and password open again: the next person at this
 * browser can neither see nor read them, and the owner loses nothing by logging out.
 */
export const ANONYMOUS_SPACE = 'anonymous';

/** Iterations of PBKDF2-SHA-256: slow enough to make guessing a password from the ciphertext costly, ~0.1 s at log-in. */
const KEY_ITERATIONS = 210_000;
const encoder = new TextEncoder();

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', encoder.encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The space's name: stable per account, without the email in clear in the browser's storage. */
export async function spaceOf(email: string | null): Promise<string> {
  return email === null ? ANONYMOUS_SPACE : `account-${(await sha256Hex(`maskwright-space:${email.trim().toLowerCase()}`)).slice(0, 32)}`;
}

export async function deriveSpaceKey(email: string, password: string): Promise<CryptoKey> {
  const material = await crypto.subtle.importKey('raw', encoder.encode(password), 'PBKDF2', false, ['deriveKey']);
  return crypto.subtle.deriveKey(
    { name: 'PBKDF2', hash: 'SHA-256', iterations: KEY_ITERATIONS, salt: encoder.encode(`maskwright-local-space:${email.trim().toLowerCase()}`) },
    material,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
}

export interface Sealed {
  readonly iv: Uint8Array<ArrayBuffer>;
  readonly data: ArrayBuffer;
}

export async function seal(key: CryptoKey, bytes: Uint8Array<ArrayBuffer>): Promise<Sealed> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  return { iv, data: await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, bytes) };
}

/** Throws when the key is not the one that sealed it (another password) or the entry was altered. */
export async function unseal(key: CryptoKey, sealed: Sealed): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await crypto.subtle.decrypt({ name: 'AES-GCM', iv: sealed.iv }, key, sealed.data));
}

export const sealJson = (key: CryptoKey, value: unknown) => seal(key, encoder.encode(JSON.stringify(value)));
export const unsealJson = async <T>(key: CryptoKey, sealed: Sealed): Promise<T> => JSON.parse(new TextDecoder().decode(await unseal(key, sealed))) as T;
