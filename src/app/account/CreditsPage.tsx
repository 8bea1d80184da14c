import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { CREDIT_PACKAGES, type CreditPackageId } from '../../contract';
import { ACCOUNT_QUERY } from '../queryClient';
import { useUi } from '../state/uiStore';
import { accountApi, formatPerCall, formatPrice } from './accountApi';
import { PerRequestPaymentNote } from './PerRequestPaymentNote';
import { useAccount } from './useAccount';

export function CreditsPage() {
  const account = useAccount();
  const baseUrl = useUi((s) => s.remote.baseUrl);
  const queryClient = useQueryClient();
  const [done, setDone] = useState<string | null>(null);
  const packages = useQuery({
    queryKey: ['credit-packages', baseUrl],
    queryFn: () => accountApi.packages(baseUrl),
    // The three packages are part of the contract: show them even before the server answers.
    placeholderData: { packages: CREDIT_PACKAGES.map((p) => ({ ...p })) },
  });
  const purchase = useMutation({
    mutationFn: (id: CreditPackageId) => accountApi.purchase(baseUrl, id),
    onSuccess: (result) => {
      if (result.checkoutUrl && result.status !== 'paid') {
        window.location.assign(result.checkoutUrl);
        return;
      }
      setDone(`Added ${result.credits} credits${result.mode === 'demo' ? ' (demo payment mode: no money moved)' : ''}.`);
      void queryClient.invalidateQueries({ queryKey: ACCOUNT_QUERY });
    },
  });
  const signedIn = account.data?.via === 'session';
  return (
    <main className="page">
      <h1>Credits</h1>
      <p className="hint">
        One remote request costs 1 credit; failed requests are refunded. One-time purchases, no subscription.
        {account.data && (
          <>
            {' '}
            Balance: <strong data-testid="credits-balance">{account.data.credits}</strong> credits.
          </>
        )}
      </p>
      <div className="packages">
        {packages.data?.packages.map((p) => (
          <div key={p.id} className="card package" role="group" aria-label={p.name}>
            <h2>{p.name}</h2>
            <p className="big-number">{p.credits.toLocaleString('en-US')} credits</p>
            <p className="price">{formatPrice(p.priceCents, p.currency)}</p>
            <p className="muted small">{formatPerCall(p.priceCents, p.credits, p.currency)} per call</p>
            <button type="button" className="primary" disabled={!signedIn || purchase.isPending} onClick={() => purchase.mutate(p.id)} aria-label={`Buy ${p.name}`}>
              Buy {p.name}
            </button>
          </div>
        ))}
      </div>
      <PerRequestPaymentNote />
      {!signedIn && (
        <p>
          <a href="#/account" onClick={() => useUi.getState().setPage('account')}>
            Sign up or log in
          </a>{' '}
          to buy credits.
        </p>
      )}
      {done && (
        <p role="status" className="success">
          {done}
        </p>
      )}
      {purchase.error && (
        <p role="alert" className="error">
          {purchase.error.message}
        </p>
      )}
    </main>
  );
}
