import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { CREDIT_PACKAGES, type CreditPackageId } from '../../contract';
import { ACCOUNT_QUERY } from '../queryClient';
import { useUi } from '../state/uiStore';
import { useRemoteSettings } from '../state/remoteSettingsStore';
import { accountApi, formatPerCall, formatPrice } from '../remote/accountApi';
import { PerRequestPaymentNote } from './PerRequestPaymentNote';
import { useAccount } from '../remote/useAccount';

export function CreditsPage() {
  const account = useAccount();
  const baseUrl = useRemoteSettings((s) => s.remote.baseUrl);
  const queryClient = useQueryClient();
  const [done, setDone] = useState<string | null>(null);
  const packages = useQuery({
    queryKey: ['credit-packages', baseUrl],
    queryFn: () => accountApi.packages(baseUrl),
    // The three packages are part of the contract: show them even before the server answers.
    placeholderData: { packages: CREDIT_PACKAGES.map((p) => ({ ...p })) },
  });
  const demo = packages.data?.paymentMode === 'demo';
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
  // Purchases credit the signed-in account (the session pays for them), whoever's key is stored.
  const signedIn = account.data?.via === 'session' ? account.data.signedIn : null;
  const buy = (p: { id: CreditPackageId; name: string; credits: number }) => {
    if (demo && !confirm(`Demo payment: no money moves. Add ${p.credits.toLocaleString('en-US')} credits to ${signedIn?.email ?? 'this account'} for free?`)) return;
    purchase.mutate(p.id);
  };
  return (
    <main className="page">
      <h1>Credits</h1>
      <p className="hint">
        One remote request costs 1 credit; failed requests are refunded. One-time purchases, no subscription.
        {signedIn && (
          <>
            {' '}
            Balance of {signedIn.email}: <strong data-testid="credits-balance">{signedIn.credits}</strong> credits.
          </>
        )}
      </p>
      {demo && (
        <p className="card demo-notice" role="note" data-testid="demo-notice">
          <strong>Demo — no money moves.</strong> This server has no payment provider: a purchase adds the credits at once, for free.
        </p>
      )}
      {packages.data?.paymentMode === 'disabled' && (
        <p className="card demo-notice" role="note">
          Purchases are off: this server has no payment provider, and demo purchases are refused on a server reachable from other machines.
        </p>
      )}
      <div className="packages">
        {packages.data?.packages.map((p) => (
          <div key={p.id} className="card package" role="group" aria-label={p.name}>
            <h2>{p.name}</h2>
            <p className="big-number">{p.credits.toLocaleString('en-US')} credits</p>
            <p className="price">{formatPrice(p.priceCents, p.currency)}</p>
            <p className="muted small">{formatPerCall(p.priceCents, p.credits, p.currency)} per call</p>
            <button type="button" className="primary" disabled={!signedIn || purchase.isPending} onClick={() => buy(p)} aria-label={`Buy ${p.name}`}>
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
