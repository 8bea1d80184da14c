import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { ApiKeyCreated } from '../../contract';
import { useUi } from '../state/uiStore';
import { useRemoteSettings } from '../state/remoteSettingsStore';
import { accountApi } from '../remote/accountApi';
import { useAccount } from '../remote/useAccount';

const KEYS_QUERY = ['api-keys'] as const;

export function KeysPage() {
  const account = useAccount();
  const remote = useRemoteSettings((s) => s.remote);
  const setRemote = useRemoteSettings((s) => s.setRemote);
  const queryClient = useQueryClient();
  const [fresh, setFresh] = useState<ApiKeyCreated | null>(null);
  const [copied, setCopied] = useState(false);
  const signedIn = account.data?.via === 'session';
  const keys = useQuery({ queryKey: [...KEYS_QUERY, remote.baseUrl], queryFn: () => accountApi.listKeys(remote.baseUrl), enabled: signedIn });
  const onCreated = (created: ApiKeyCreated) => {
    setFresh(created);
    setCopied(false);
    void queryClient.invalidateQueries({ queryKey: KEYS_QUERY });
  };
  const create = useMutation({ mutationFn: () => accountApi.createKey(remote.baseUrl), onSuccess: onCreated });
  const usedHere = (prefix: string) => remote.apiKey !== '' && remote.apiKey.startsWith(prefix);
  const rotate = useMutation({
    mutationFn: (key: { id: string; prefix: string }) => accountApi.rotateKey(remote.baseUrl, key.id),
    onSuccess: (created, key) => {
      // Rotating the key this browser uses: switch to the new one, or remote mode would start failing with 401.
      if (usedHere(key.prefix)) setRemote({ ...remote, apiKey: created.key });
      onCreated(created);
    },
  });
  const revoke = useMutation({
    mutationFn: (key: { id: string; prefix: string }) => accountApi.revokeKey(remote.baseUrl, key.id),
    onSuccess: (_result, key) => {
      if (fresh?.id === key.id) setFresh(null);
      if (usedHere(key.prefix)) setRemote({ ...remote, apiKey: '' });
      void queryClient.invalidateQueries({ queryKey: KEYS_QUERY });
    },
  });
  const error = create.error ?? rotate.error ?? revoke.error ?? keys.error;

  if (!signedIn) {
    return (
      <main className="page narrow">
        <h1>API keys</h1>
        <p>
          <a href="#/account" onClick={() => useUi.getState().setPage('account')}>
            Sign up or log in
          </a>{' '}
          to generate API keys.
        </p>
      </main>
    );
  }
  return (
    <main className="page narrow">
      <h1>API keys</h1>
      <p className="hint">A key authenticates remote requests (<code>Authorization: Bearer …</code>). Keep it secret; rotate it if it leaks.</p>
      {fresh && (
        <div className="card new-key" role="region" aria-label="New API key">
          <p>
            <strong>Your new key.</strong> It is shown only once — copy it now.
          </p>
          <div className="row">
            <code className="secret" data-testid="new-api-key">
              {fresh.key}
            </code>
            <button
              type="button"
              onClick={() => {
                void navigator.clipboard?.writeText(fresh.key).then(() => setCopied(true), () => setCopied(false));
              }}
            >
              {copied ? 'Copied' : 'Copy'}
            </button>
          </div>
          <div className="row">
            <button type="button" className="primary" onClick={() => setRemote({ ...remote, apiKey: fresh.key })} disabled={remote.apiKey === fresh.key}>
              {remote.apiKey === fresh.key ? 'Used in this browser' : 'Use in this browser'}
            </button>
            <button type="button" onClick={() => setFresh(null)}>
              Done
            </button>
          </div>
        </div>
      )}
      <div className="row">
        <button type="button" className="primary" onClick={() => create.mutate()} disabled={create.isPending}>
          Generate API key
        </button>
      </div>
      {error && (
        <p role="alert" className="error">
          {error.message}
        </p>
      )}
      <table className="keys">
        <thead>
          <tr>
            <th>Key</th>
            <th>Created</th>
            <th>Last used</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {keys.data?.keys.map((k) => (
            <tr key={k.id}>
              <td>
                <code>{k.prefix}…</code>
                {usedHere(k.prefix) && <span className="chip in-use">used in this browser</span>}
              </td>
              <td>{new Date(k.createdAt).toLocaleString()}</td>
              <td>{k.lastUsedAt ? new Date(k.lastUsedAt).toLocaleString() : 'never'}</td>
              <td className="row">
                <button type="button" aria-label={`Rotate ${k.prefix}`} onClick={() => rotate.mutate(k)} disabled={rotate.isPending}>
                  Rotate
                </button>
                <button
                  type="button"
                  className="danger"
                  aria-label={`Revoke ${k.prefix}`}
                  onClick={() => {
                    if (confirm(`Revoke the key ${k.prefix}…? Requests using it will fail with 401.`)) revoke.mutate(k);
                  }}
                >
                  Revoke
                </button>
              </td>
            </tr>
          ))}
          {keys.data?.keys.length === 0 && (
            <tr>
              <td colSpan={4} className="muted">
                No keys yet.
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </main>
  );
}
