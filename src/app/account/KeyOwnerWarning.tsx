import { useRemoteSettings } from '../state/remoteSettingsStore';
import { foreignKeyMessage, useForeignKeyChoice } from '../remote/payer';
import { useAccount } from '../remote/useAccount';

/** Shown while the stored API key belongs to another account than the signed-in one; paid calls wait for a choice. */
export function KeyOwnerWarning() {
  const account = useAccount();
  const remote = useRemoteSettings((s) => s.remote);
  const setRemote = useRemoteSettings((s) => s.setRemote);
  const accepted = useForeignKeyChoice((s) => s.accepted);
  const accept = useForeignKeyChoice((s) => s.accept);
  const view = account.data;
  if (!view?.foreignKey) return null;
  const chosen = accepted === `${remote.apiKey}\u0000${view.signedIn!.email}`;
  return (
    <div className={chosen ? 'key-owner-warning muted small' : 'key-owner-warning error'} role={chosen ? 'status' : 'alert'} data-testid="key-owner-warning">
      {foreignKeyMessage(view)}
      {!chosen && (
        <>
          {' '}
          <button type="button" className="small" onClick={() => setRemote({ ...remote, apiKey: '' })}>
            Forget this key
          </button>{' '}
          <button type="button" className="small" onClick={() => accept(remote.apiKey, view.signedIn!.email)}>
            Use it anyway
          </button>
        </>
      )}
    </div>
  );
}
