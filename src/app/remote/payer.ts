/**
 * Who pays for a remote call: the account of the API key stored in this browser (remote calls
 * carry it), which need not be the account signed in here — log in as B after A's key was saved,
 * and A would pay while B looks at the screen. The studio shows the paying account's balance,
 * flags a key of another account, and refuses paid calls with such a key until the person chooses
 * explicitly to use it (or forgets it).
 */
import { create } from 'zustand';
import type { Account } from '../../contract';
import { ACCOUNT_QUERY, queryClient } from '../queryClient';
import type { RemoteSettings } from '../state/remoteSettingsStore';
import { AccountApiError, accountApi, accountWithKey, csrfToken } from './accountApi';

export interface AccountView {
  /** The account that pays for remote calls: the stored key's when it is valid, else the signed-in one. */
  email: string;
  credits: number;
  /** 'session' when someone is signed in in this browser. */
  via: 'session' | 'key';
  signedIn: Account | null;
  keyOwner: Account | null;
  /** The stored key belongs to another account than the signed-in one. */
  foreignKey: boolean;
}

/** 401 (and 404 for a server without accounts) mean "nobody", anything else is an error. */
async function orNobody(read: () => Promise<Account>): Promise<Account | null> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof AccountApiError && (error.status === 401 || error.status === 404)) return null;
    throw error;
  }
}

export async function readAccountView(remote: RemoteSettings): Promise<AccountView | null> {
  const [signedIn, keyOwner] = await Promise.all([
    // The server sets and clears the CSRF cookie with the session: without it there is no session
    // to ask about, and asking would only put a 401 in the console of every anonymous visit.
    csrfToken() ? orNobody(() => accountApi.account(remote.baseUrl)) : Promise.resolve(null),
    remote.apiKey ? orNobody(() => accountWithKey(remote.baseUrl, remote.apiKey)) : Promise.resolve(null),
  ]);
  const payer = keyOwner ?? signedIn;
  if (!payer) return null;
  return {
    email: payer.email,
    credits: payer.credits,
    via: signedIn ? 'session' : 'key',
    signedIn,
    keyOwner,
    foreignKey: !!signedIn && !!keyOwner && signedIn.email !== keyOwner.email,
  };
}

/** Names the stored key without putting the secret itself in a cache key. */
export function accountQueryKey(remote: RemoteSettings) {
  return [...ACCOUNT_QUERY, remote.baseUrl, remote.apiKey.slice(0, 16)] as const;
}

/** The explicit choice "use this other account's key anyway", for one key and one signed-in account, this page's life only. */
export const useForeignKeyChoice = create<{ accepted: string | null; accept(key: string, signedInEmail: string): void }>((set) => ({
  accepted: null,
  accept: (key, signedInEmail) => set({ accepted: `${key}\u0000${signedInEmail}` }),
}));

export function foreignKeyAccepted(key: string, signedInEmail: string): boolean {
  return useForeignKeyChoice.getState().accepted === `${key}\u0000${signedInEmail}`;
}

export function foreignKeyMessage(view: AccountView): string {
  return `The API key in this browser belongs to ${view.keyOwner!.email}, not to ${view.signedIn!.email} who is signed in: remote requests would spend ${view.keyOwner!.email}'s credits.`;
}

/**
 * Before any paid call: why it must not be sent (a key of another account than the signed-in one,
 * not explicitly accepted), or null. Reads the accounts afresh unless they were read just now.
 */
export async function paidCallRefusal(remote: RemoteSettings): Promise<string | null> {
  const view = await queryClient.fetchQuery({ queryKey: accountQueryKey(remote), queryFn: () => readAccountView(remote), staleTime: 2_000 });
  if (!view?.foreignKey || foreignKeyAccepted(remote.apiKey, view.signedIn!.email)) return null;
  return `${foreignKeyMessage(view)} Choose "Use it anyway" or "Forget this key" at the top of the page.`;
}
