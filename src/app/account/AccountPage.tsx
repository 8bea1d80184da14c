import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ACCOUNT_QUERY } from '../queryClient';
import { useUi } from '../state/uiStore';
import { useRemoteSettings } from '../state/remoteSettingsStore';
import { storedEmbeddings } from '../studioServices';
import { forgetAllSpaceKeys } from '../persistence/session';
import { openSpaceWithPassword } from '../persistence/spaceStore';
import { flushSessionSave } from '../useSessionPersistence';
import { showProjectInAddress } from '../projects/projectLink';
import { accountApi } from '../remote/accountApi';
import { useAccount } from '../remote/useAccount';

export function AccountPage() {
  const account = useAccount();
  const remote = useRemoteSettings((s) => s.remote);
  const setRemote = useRemoteSettings((s) => s.setRemote);
  // Logging out forgets the API key stored in this browser unless the person explicitly keeps it:
  // otherwise the next person signing in here would spend this account's credits.
  const [keepKey, setKeepKey] = useState(false);
  const logout = useMutation({
    mutationFn: async () => {
      // The last edit goes into this account's sealed space before its key is dropped.
      await flushSessionSave();
      await accountApi.logout(remote.baseUrl);
    },
    onSettled: async () => {
      if (!keepKey) setRemote({ ...remote, apiKey: '' });
      await forgetAllSpaceKeys().catch(() => undefined);
      await storedEmbeddings.forgetAll().catch(() => undefined);
      // A fresh page: nothing of this person stays in memory (the document and its undo history,
      // decoded photos, the engine worker's embeddings, cached answers) for the next one to reach.
      showProjectInAddress(null);
      location.hash = '#/account';
      location.reload();
    },
  });
  if (account.isPending) return <main className="page"><p>Loading…</p></main>;
  const signedIn = account.data?.via === 'session' ? account.data.signedIn : null;
  if (signedIn) {
    return (
      <main className="page narrow">
        <h1>Account</h1>
        <div className="card">
          <p>
            Signed in as <strong>{signedIn.email}</strong>
          </p>
          <p className="big-number">
            <strong data-testid="account-balance">{signedIn.credits}</strong> credits
          </p>
          {remote.apiKey && (
            <label className="row small">
              <input type="checkbox" checked={keepKey} onChange={(e) => setKeepKey(e.target.checked)} />
              Keep the API key <code>{remote.apiKey.slice(0, 12)}…</code> in this browser after logging out (whoever uses this browser then spends its credits)
            </label>
          )}
          <div className="row">
            <a className="button" href="#/keys" onClick={() => useUi.getState().setPage('keys')}>
              API keys
            </a>
            <a className="button" href="#/credits" onClick={() => useUi.getState().setPage('credits')}>
              Buy credits
            </a>
            <button type="button" onClick={() => logout.mutate()} disabled={logout.isPending}>
              Log out
            </button>
          </div>
        </div>
      </main>
    );
  }
  return <AuthForms />;
}

function AuthForms() {
  const [tab, setTab] = useState<'signup' | 'login'>('signup');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const baseUrl = useRemoteSettings((s) => s.remote.baseUrl);
  const queryClient = useQueryClient();
  const submit = useMutation({
    mutationFn: () => (tab === 'signup' ? accountApi.signup(baseUrl, email, password) : accountApi.login(baseUrl, email, password)),
    // Another person may have been signed in here: show nothing of theirs while the new account loads.
    onSuccess: () => {
      openSpaceWithPassword(email, password);
      // Reset, not remove + invalidate: a removed query is no longer in the cache, so invalidating
      // it refetched nothing and the page showed "Not signed in" until the next poll. Reset empties
      // what the header shows and refetches at once.
      return queryClient.resetQueries({ queryKey: ACCOUNT_QUERY });
    },
  });
  return (
    <main className="page narrow">
      <h1>{tab === 'signup' ? 'Create an account' : 'Log in'}</h1>
      <p className="hint">An account gives you API keys for remote inference. New accounts get 5 free credits; no card needed.</p>
      <div className="tabs" role="tablist">
        <button type="button" role="tab" aria-selected={tab === 'signup'} className={tab === 'signup' ? 'active' : ''} onClick={() => setTab('signup')}>
          New account
        </button>
        <button type="button" role="tab" aria-selected={tab === 'login'} className={tab === 'login' ? 'active' : ''} onClick={() => setTab('login')}>
          I have an account
        </button>
      </div>
      <form
        className="card"
        aria-label={tab === 'signup' ? 'Sign up' : 'Log in'}
        onSubmit={(e) => {
          e.preventDefault();
          submit.mutate();
        }}
      >
        <label className="field">
          Email
          <input type="email" required autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} />
        </label>
        <label className="field">
          Password
          <input type="password" required minLength={8} autoComplete={tab === 'signup' ? 'new-password' : 'current-password'} value={password} onChange={(e) => setPassword(e.target.value)} />
        </label>
        {tab === 'signup' && <p className="hint small">At least 8 characters.</p>}
        {submit.error && (
          <p role="alert" className="error">
            {submit.error.message}
          </p>
        )}
        <button type="submit" className="primary" disabled={submit.isPending}>
          {tab === 'signup' ? 'Sign up' : 'Log in'}
        </button>
      </form>
    </main>
  );
}
