import { create } from 'zustand';
import type { AccountView } from '../remote/payer';
import { ANONYMOUS_SPACE, deriveSpaceKey, spaceOf } from './localSpace';
import { ANONYMOUS, forgetAllSpaceKeys, lastSpaceName, rememberSpaceKey, spaceKey, type LocalSpace } from './session';

/**
 * Which local space the studio reads and writes now: the anonymous one, a signed-in account's, or
 * none (`null`: an account signed in here before spaces existed, whose key this browser never got —
 * its work is kept in memory only until the person logs in again).
 */
export const useLocalSpace = create<{ space: LocalSpace | null }>(() => ({ space: ANONYMOUS }));

let keyInFlight: Promise<void> = Promise.resolve();

/** At sign-up or log-in, the only moment the password is at hand: the account's space key is derived and kept. */
export function openSpaceWithPassword(email: string, password: string): void {
  keyInFlight = (async () => {
    const key = await deriveSpaceKey(email, password);
    await rememberSpaceKey(await spaceOf(email), key);
  })().catch(() => undefined);
}

/**
 * The space for what the server says about this browser's session. Nobody signed in: the keys of
 * every account space are dropped (logged out here or elsewhere, or the session expired). The
 * server unreachable: the space opened last, so a signed-in person keeps working offline.
 */
export async function chooseSpace(view: AccountView | null, serverUnreachable: boolean): Promise<LocalSpace | null> {
  await keyInFlight;
  if (serverUnreachable) {
    const name = await lastSpaceName();
    const key = name && name !== ANONYMOUS_SPACE ? await spaceKey(name) : undefined;
    return name && key ? { name, key } : ANONYMOUS;
  }
  const email = view?.signedIn?.email ?? null;
  if (email === null) {
    await forgetAllSpaceKeys();
    return ANONYMOUS;
  }
  const name = await spaceOf(email);
  const key = await spaceKey(name);
  return key ? { name, key } : null;
}
