import { useQuery } from '@tanstack/react-query';
import { useRemoteSettings } from '../state/remoteSettingsStore';
import { accountQueryKey, readAccountView } from './payer';

/**
 * The account view of this browser: who is signed in, whose key is stored, and the account that
 * pays for remote calls (email and credits: the key's, else the signed-in one; see payer.ts).
 */
export function useAccount() {
  const remote = useRemoteSettings((s) => s.remote);
  return useQuery({ queryKey: accountQueryKey(remote), queryFn: () => readAccountView(remote), refetchInterval: 30_000 });
}
