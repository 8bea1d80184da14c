import { KeyOwnerWarning } from '../account/KeyOwnerWarning';
import { useAccount } from '../remote/useAccount';
import { useUi, type Page } from '../state/uiStore';
import { InferenceSwitch } from './InferenceSwitch';

export function Header() {
  const page = useUi((s) => s.page);
  const setPage = useUi((s) => s.setPage);
  const account = useAccount();
  const link = (target: Page, label: string) => (
    <a href={target === 'studio' ? '#/' : `#/${target}`} className={page === target ? 'nav-link active' : 'nav-link'} aria-current={page === target ? 'page' : undefined} onClick={() => setPage(target)}>
      {label}
    </a>
  );
  return (
    <>
      <header className="app-header">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true" />
          <span className="brand-name">Maskwright</span>
        </div>
        <nav className="nav" aria-label="Main">
          {link('studio', 'Studio')}
          {link('keys', 'API keys')}
          {link('credits', 'Credits')}
          {link('account', account.data?.via === 'session' ? 'Account' : 'Log in')}
          {/* Served by the API server (npm start) beside the studio: endpoints, problem types, OpenAPI. */}
          <a className="nav-link" href="/docs" target="_blank" rel="noopener">
            API docs
          </a>
        </nav>
        <div className="header-right">
          <InferenceSwitch />
          {/* The account that pays for remote requests: the stored key's (see remote/payer.ts). */}
          <div className="balance" data-testid="balance" title="Credit balance of the account that pays for remote requests: 1 credit per request">
            {account.data ? (
              <>
                <strong>{account.data.credits}</strong> {account.data.credits === 1 ? 'credit' : 'credits'}
                <span className="muted email" title={account.data.email}>
                  {' '}
                  · {account.data.email}
                </span>
              </>
            ) : (
              <span className="muted">Not signed in</span>
            )}
          </div>
        </div>
      </header>
      {/* A full-width bar under the header: the sentence names two accounts and would crowd the header. */}
      <KeyOwnerWarning />
    </>
  );
}
