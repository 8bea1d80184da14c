/**
 * Remote mode tells the user when the server also takes per-request payment (x402), from what
 * GET /api/v1/credit-packages advertises — and says nothing when it does not.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { renderToStaticMarkup } from 'react-dom/server';
import { beforeAll, describe, expect, it } from 'vitest';

const offer = {
  protocol: 'x402',
  x402Version: 2,
  scheme: 'exact',
  network: 'eip155:84532',
  price: '$0.01',
  asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
  amount: '10000',
  payTo: '0x9ab300eD9C635CEB30C62E27ba56617f335A3163',
} as const;

beforeAll(() => {
  // The UI store reads the saved settings (localStorage) and the page (location.hash) at import.
  Object.assign(globalThis, { location: { hash: '' } });
  const saved = new Map<string, string>();
  globalThis.localStorage = {
    getItem: (k: string) => saved.get(k) ?? null,
    setItem: (k: string, v: string) => void saved.set(k, v),
    removeItem: (k: string) => void saved.delete(k),
    clear: () => saved.clear(),
    key: () => null,
    get length() {
      return saved.size;
    },
  };
});

async function renderRemoteSettings(perRequestPayment: typeof offer | null): Promise<string> {
  const { RemoteSettings } = await import('../components/RemoteSettings');
  const client = new QueryClient();
  client.setQueryData(['credit-packages', ''], { packages: [], paymentMode: 'demo', perRequestPayment });
  return renderToStaticMarkup(
    <QueryClientProvider client={client}>
      <RemoteSettings />
    </QueryClientProvider>,
  );
}

describe('per-request payment in remote mode', () => {
  it('shows price, network and payee when the server offers x402', async () => {
    const html = await renderRemoteSettings(offer);
    expect(html).toContain('per-request payment (x402)');
    expect(html).toContain('$0.01 per call on Base Sepolia (testnet)');
    expect(html).toContain('0x9ab3…3163');
    expect(html).toContain('the studio itself uses your API key and credits');
  });

  it('says nothing when the server does not', async () => {
    expect(await renderRemoteSettings(null)).not.toContain('x402');
  });
});
