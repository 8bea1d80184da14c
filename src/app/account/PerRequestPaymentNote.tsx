import { useQuery } from '@tanstack/react-query';
import type { PerRequestPayment } from '../../contract/account';
import { useRemoteSettings } from '../state/remoteSettingsStore';
import { accountApi } from '../remote/accountApi';

const NETWORK_NAMES: Record<string, string> = {
  'eip155:8453': 'Base',
  'eip155:84532': 'Base Sepolia (testnet)',
};

export function describeOffer(offer: PerRequestPayment): string {
  const network = NETWORK_NAMES[offer.network] ?? offer.network;
  const price = offer.price.startsWith('$') ? offer.price : `${offer.amount} units of ${offer.asset}`;
  return `${price} per call on ${network}`;
}

/**
 * Says so when the server accepts per-request payment (x402), as advertised on
 * GET /api/v1/credit-packages. Information only: the studio pays with the API key's credits, and
 * x402 payments are signed by an API client's wallet, not in this browser.
 */
export function PerRequestPaymentNote() {
  const baseUrl = useRemoteSettings((s) => s.remote.baseUrl);
  const packages = useQuery({
    queryKey: ['credit-packages', baseUrl],
    queryFn: () => accountApi.packages(baseUrl),
    staleTime: 5 * 60_000,
    retry: false,
  });
  const offer = packages.data?.perRequestPayment;
  if (!offer) return null;
  return (
    <p className="hint small" data-testid="x402-offer">
      This server also takes <strong>per-request payment (x402)</strong>: {describeOffer(offer)}, paid to{' '}
      <code title={offer.payTo}>
        {offer.payTo.slice(0, 6)}…{offer.payTo.slice(-4)}
      </code>
      . API clients with an x402 wallet can call it without an API key (a call without a key is answered 402 with the
      payment requirements); the studio itself uses your API key and credits.
    </p>
  );
}
