/**
 * The x402 side of a paid request, on the x402 v2 packages: the requirements we accept
 * (@x402/core's resource server with @x402/evm's exact scheme), the wire headers (the packages'
 * own encode/decode helpers) and the facilitator (HTTPFacilitatorClient: POST /verify, /settle).
 * Every failure comes out as a DomainError with the right problem type, so the paid-call flow
 * reads as rules, not as protocol plumbing.
 */
import {
  decodePaymentSignatureHeader,
  encodePaymentRequiredHeader,
  encodePaymentResponseHeader,
} from '@x402/core/http';
import { HTTPFacilitatorClient, x402ResourceServer } from '@x402/core/server';
import type { Network, PaymentPayload, PaymentRequired, PaymentRequirements, Price, SettleResponse } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { DomainError } from '../errors';

export interface X402Settings {
  /** Address that receives the payments. */
  payTo: string;
  /** CAIP-2 network, e.g. eip155:84532 (Base Sepolia) or eip155:8453 (Base). */
  network: Network;
  /** `$0.01` (the network's default USD stablecoin), or atomic units when `asset` is set. */
  price: string;
  /** Token to be paid in, instead of the network's default stablecoin (EIP-3009, with its EIP-712 domain). */
  asset?: { address: string; name: string; version: string };
  facilitatorUrl: string;
  facilitatorTimeoutMs: number;
  /** How long a signed payment stays valid (the client sets validBefore from it). */
  maxTimeoutSeconds: number;
  /** Base of the `resource.url` in the requirements; else taken from the request. */
  publicBaseUrl?: string;
}

/** What GET /api/v1/credit-packages tells clients about per-request payment. */
export interface X402Offer {
  protocol: 'x402';
  x402Version: 2;
  scheme: 'exact';
  network: string;
  price: string;
  asset: string;
  amount: string;
  payTo: string;
}

const X402_VERSION = 2;

export class X402Gateway {
  private readonly resourceServer: x402ResourceServer;
  private readonly scheme = new ExactEvmScheme();
  private requirementsPromise?: Promise<PaymentRequirements[]>;

  constructor(readonly settings: X402Settings) {
    const facilitator = new HTTPFacilitatorClient({ url: settings.facilitatorUrl, timeoutMs: settings.facilitatorTimeoutMs });
    this.resourceServer = new x402ResourceServer(facilitator).register(settings.network, this.scheme);
  }

  private price(): Price {
    const { asset, price } = this.settings;
    return asset ? { asset: asset.address, amount: price, extra: { name: asset.name, version: asset.version } } : price;
  }

  /**
   * The accepted payment requirements. Needs the facilitator's /supported once; a failure is not
   * cached, so the next request tries again (the server starts even while the facilitator is down).
   */
  requirements(): Promise<PaymentRequirements[]> {
    this.requirementsPromise ??= (async () => {
      await this.resourceServer.initialize();
      const { payTo, network, maxTimeoutSeconds } = this.settings;
      return this.resourceServer.buildPaymentRequirements({ scheme: 'exact', payTo, network, price: this.price(), maxTimeoutSeconds });
    })();
    return this.requirementsPromise.catch((error) => {
      this.requirementsPromise = undefined;
      throw unavailable('the facilitator could not be asked which payments it supports', error);
    });
  }

  /** Price and network as advertised to clients; computed locally (no facilitator needed). */
  async offer(): Promise<X402Offer> {
    const parsed = await this.scheme.parsePrice(this.price(), this.settings.network);
    return {
      protocol: 'x402',
      x402Version: X402_VERSION,
      scheme: 'exact',
      network: this.settings.network,
      price: this.settings.price,
      asset: parsed.asset,
      amount: parsed.amount,
      payTo: this.settings.payTo,
    };
  }

  resourceUrl(requestBase: string, path: string): string {
    return `${this.settings.publicBaseUrl ?? requestBase}${path}`;
  }

  /** 402 `payment-required` (nothing sent) or `payment-invalid` (with the x402 reason). */
  async paymentError(resourceUrl: string, rejection?: { reason: string; detail: string }): Promise<DomainError> {
    const paymentRequired: PaymentRequired = await this.resourceServer.createPaymentRequiredResponse(
      await this.requirements(),
      { url: resourceUrl, description: 'Maskwright segmentation, one call', mimeType: 'application/json' },
      rejection?.reason ?? 'Payment required',
    );
    const headers = { 'PAYMENT-REQUIRED': encodePaymentRequiredHeader(paymentRequired), 'Cache-Control': 'no-store' };
    if (!rejection) {
      return new DomainError('payment-required', 'send Authorization: Bearer <API key>, or pay for this request (x402): see PAYMENT-REQUIRED', {
        headers,
        members: { x402: paymentRequired },
      });
    }
    return new DomainError('payment-invalid', rejection.detail, { headers, members: { reason: rejection.reason, x402: paymentRequired } });
  }

  /** The PAYMENT-SIGNATURE header, decoded with the package's own helper; undefined if it is not a v2 payload. */
  decode(header: string): PaymentPayload | undefined {
    try {
      const payload = decodePaymentSignatureHeader(header);
      return payload && payload.x402Version === X402_VERSION && payload.accepted && payload.payload ? payload : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * The payer a decoded payment names (EIP-3009 `authorization.from`), lower-cased, before any
   * verification: what the rate limit counts on arrival. Only a claim — verification decides who pays.
   */
  claimedPayer(payload: PaymentPayload | undefined): string | undefined {
    const from = (payload?.payload as { authorization?: { from?: unknown } } | undefined)?.authorization?.from;
    return typeof from === 'string' && /^0x[0-9a-fA-F]{40}$/.test(from) ? from.toLowerCase() : undefined;
  }

  match(accepts: PaymentRequirements[], payload: PaymentPayload): PaymentRequirements | undefined {
    return this.resourceServer.findMatchingRequirements(accepts, payload);
  }

  /** Facilitator /verify. An invalid payment is an answer ({isValid: false}); an unreachable facilitator a 502. */
  async verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<{ valid: true; payer: string } | { valid: false; reason: string; detail: string }> {
    let result;
    try {
      result = await this.resourceServer.verifyPayment(payload, requirements);
    } catch (error) {
      // A facilitator that answers an error status with a VerifyResponse body still gave an answer.
      const answered = error as { invalidReason?: string; invalidMessage?: string; name?: string };
      if (answered?.name === 'VerifyError' && answered.invalidReason) {
        return { valid: false, reason: answered.invalidReason, detail: answered.invalidMessage ?? answered.invalidReason };
      }
      throw unavailable('the facilitator could not verify the payment', error);
    }
    if (!result.isValid || !result.payer) {
      const reason = result.invalidReason ?? 'invalid_payment';
      return { valid: false, reason, detail: `the facilitator rejected the payment: ${result.invalidMessage ?? reason}` };
    }
    return { valid: true, payer: result.payer };
  }

  /**
   * Facilitator /settle. A refused settlement is an answer ({success: false}, with its
   * PAYMENT-RESPONSE); a facilitator that cannot be reached leaves the outcome unknown: 502.
   */
  async settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse> {
    try {
      return await this.resourceServer.settlePayment(payload, requirements);
    } catch (error) {
      const answered = error as Partial<SettleResponse> & { name?: string };
      if (answered?.name === 'SettleError') {
        return {
          success: false,
          errorReason: answered.errorReason ?? 'settlement_failed',
          errorMessage: answered.errorMessage,
          payer: answered.payer,
          transaction: answered.transaction ?? '',
          network: answered.network ?? this.settings.network,
        };
      }
      throw unavailable('the facilitator could not settle the payment; its outcome is unknown and the result is withheld', error);
    }
  }

  encodeSettlement(settlement: SettleResponse): string {
    return encodePaymentResponseHeader(settlement);
  }
}

function unavailable(what: string, error: unknown): DomainError {
  const cause = error instanceof Error ? (error.cause instanceof Error ? `${error.message}: ${error.cause.message}` : error.message) : String(error);
  return new DomainError('payment-facilitator-unavailable', `${what} (${cause})`);
}
