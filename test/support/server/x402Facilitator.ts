/**
 * A local x402 facilitator for the tests: an HTTP server on 127.0.0.1 speaking the facilitator
 * wire format (GET /supported, POST /verify, POST /settle with
 * `{x402Version, paymentPayload, paymentRequirements}`) and running the REAL facilitator code —
 * @x402/core's `x402Facilitator` with @x402/evm's exact-scheme (EIP-3009) implementation — against
 * `LocalChain`, the in-memory stand-in for the blockchain. Counts verify and settle calls so tests
 * can assert that a payment was, or was not, settled.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { x402Facilitator } from '@x402/core/facilitator';
import type { Network } from '@x402/core/types';
import { registerExactEvmScheme } from '@x402/evm/exact/facilitator';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { LocalChain } from './x402Chain';

/** USDC on Base Sepolia: the default asset the exact scheme prices `$…` amounts in on eip155:84532. */
export const BASE_SEPOLIA = 'eip155:84532' as const;
export const BASE_SEPOLIA_USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e' as const;

export interface FacilitatorCounts {
  verify: number;
  settle: number;
  /** Settle calls that moved funds (success: true). */
  settled: number;
}

export interface LocalFacilitator {
  url: string;
  chain: LocalChain;
  counts: FacilitatorCounts;
  /** Test knob: answer /verify and /settle with 503 (the facilitator is down). */
  unavailable: boolean;
  /** Test knob: answer only /settle with 503 (down between verification and settlement). */
  settleUnavailable: boolean;
  close(): Promise<void>;
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

export async function startLocalFacilitator(network: Network = BASE_SEPOLIA): Promise<LocalFacilitator> {
  const facilitatorAccount = privateKeyToAccount(generatePrivateKey());
  const chain = new LocalChain({ chainId: Number(network.split(':')[1]), token: BASE_SEPOLIA_USDC, facilitatorAddress: facilitatorAccount.address });
  const facilitator = new x402Facilitator();
  registerExactEvmScheme(facilitator, { signer: chain.signer(), networks: network });

  const counts: FacilitatorCounts = { verify: 0, settle: 0, settled: 0 };
  const state = { unavailable: false, settleUnavailable: false };
  const server: Server = createServer(async (request, response) => {
    const send = (status: number, body: unknown) => {
      // BigInts never reach here: the x402 types are strings on the wire.
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    try {
      if (request.method === 'GET' && request.url === '/supported') return send(200, facilitator.getSupported());
      if (request.method === 'POST' && (request.url === '/verify' || request.url === '/settle')) {
        const { paymentPayload, paymentRequirements } = (await readJson(request)) as {
          paymentPayload: Parameters<x402Facilitator['verify']>[0];
          paymentRequirements: Parameters<x402Facilitator['verify']>[1];
        };
        if (request.url === '/verify') {
          counts.verify += 1;
          if (state.unavailable) return send(503, { error: 'facilitator unavailable' });
          return send(200, await facilitator.verify(paymentPayload, paymentRequirements));
        }
        counts.settle += 1;
        if (state.unavailable || state.settleUnavailable) return send(503, { error: 'facilitator unavailable' });
        const result = await facilitator.settle(paymentPayload, paymentRequirements);
        if (result.success) counts.settled += 1;
        return send(200, result);
      }
      send(404, { error: 'not found' });
    } catch (error) {
      send(500, { error: error instanceof Error ? error.message : String(error) });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    chain,
    counts,
    get unavailable() {
      return state.unavailable;
    },
    set unavailable(value: boolean) {
      state.unavailable = value;
    },
    get settleUnavailable() {
      return state.settleUnavailable;
    },
    set settleUnavailable(value: boolean) {
      state.settleUnavailable = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
