import { useState } from 'react';
import { PerRequestPaymentNote } from '../account/PerRequestPaymentNote';
import { useUi } from '../state/uiStore';
import { useRemoteSettings } from '../state/remoteSettingsStore';

/** Base URL and API key for remote mode. Kept in this browser's localStorage only. */
export function RemoteSettings() {
  const remote = useRemoteSettings((s) => s.remote);
  const setRemote = useRemoteSettings((s) => s.setRemote);
  const [baseUrl, setBaseUrl] = useState(remote.baseUrl);
  const [apiKey, setApiKey] = useState(remote.apiKey);
  const [reveal, setReveal] = useState(false);
  const [editing, setEditing] = useState(!remote.apiKey);
  const dirty = baseUrl !== remote.baseUrl || apiKey !== remote.apiKey;
  if (!editing && remote.apiKey) {
    return (
      <section className="card remote-settings compact" aria-label="Remote settings">
        <div className="row spread">
          <span>
            API key <code>{remote.apiKey.slice(0, 12)}…</code>
            <span className="muted"> · {remote.baseUrl || 'same origin'}</span>
          </span>
          <button type="button" className="small" onClick={() => setEditing(true)}>
            Change
          </button>
        </div>
        <PerRequestPaymentNote />
      </section>
    );
  }
  return (
    <form
      className="card remote-settings"
      aria-label="Remote settings"
      onSubmit={(e) => {
        e.preventDefault();
        setRemote({ baseUrl: baseUrl.trim(), apiKey: apiKey.trim() });
        if (apiKey.trim()) setEditing(false);
      }}
    >
      <h2 className="section-title">Remote settings</h2>
      <label className="field">
        API base URL
        <input type="url" placeholder="same origin" value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} />
      </label>
      <label className="field">
        API key
        <span className="row">
          <input type={reveal ? 'text' : 'password'} autoComplete="off" spellCheck={false} placeholder="mwk_…" value={apiKey} onChange={(e) => setApiKey(e.target.value)} />
          <button type="button" className="small" onClick={() => setReveal(!reveal)}>
            {reveal ? 'Hide' : 'Show'}
          </button>
        </span>
      </label>
      <p className="hint small">Stored in this browser only and sent only to the API base URL.</p>
      <PerRequestPaymentNote />
      <div className="row">
        <button type="submit" className={dirty ? 'primary' : ''} disabled={!dirty}>
          Save
        </button>
        {!remote.apiKey && (
          <a href="#/keys" onClick={() => useUi.getState().setPage('keys')}>
            Get an API key
          </a>
        )}
      </div>
    </form>
  );
}
