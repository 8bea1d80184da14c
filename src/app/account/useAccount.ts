import { useQuery } from '@tanstack/react-query';
import { ACCOUNT_QUERY } from '../queryClient';
import { useUi } from '../state/uiStore';
import { AccountApiError, accountApi, accountWithKey } from './accountApi';

/** Balance and email: from the session cookie when logged in, otherwise from the pasted API key. */
export function useAccount() {
  const remote = useUi((s) => s.remote);
  return useQuery({
    queryKey: [...ACCOUNT_QUERY, remote.baseUrl, remote.apiKey ? 'key' : 'session'],
    queryFn: async () => {
      try {
        return { ...(await accountApi.account(remote.baseUrl)), via: 'session' as const };
      } catch (error) {
        if (error instanceof AccountApiError && error.status === 401 && remote.apiKey) {
          try {
            return { ...(await accountWithKey(remote.baseUrl, remote.apiKey)), via: 'key' as const };
          } catch (keyError) {
            // A revoked or rotated-out key: signed out as far as this browser knows (not an error state that keeps old data).
            if (keyError instanceof AccountApiError && keyError.status === 401) return null;
            throw keyError;
          }
        }
        if (error instanceof AccountApiError && (error.status === 401 || error.status === 404)) return null;
        throw error;
      }
    },
    refetchInterval: 30_000,
  });
}
