/** Accounts, sessions, API keys and credits: the account-level part of the API. */
import { z } from 'zod';

export const Email = z
  .string()
  .trim()
  .toLowerCase()
  .max(254)
  .pipe(z.email());

export const Credentials = z.object({
  email: Email,
  password: z.string().min(8, 'password must be at least 8 characters').max(256),
});
export type Credentials = z.infer<typeof Credentials>;

export const Account = z
  .object({
    email: z.string(),
    credits: z.number().int().nonnegative().describe('Current balance: the sum of the account ledger.'),
  });
export type Account = z.infer<typeof Account>;

export const ApiKeySummary = z
  .object({
    id: z.string(),
    prefix: z.string().describe('The first characters of the key, for recognising it. The secret is never shown again.'),
    createdAt: z.string().describe('ISO 8601'),
    lastUsedAt: z.string().nullable().optional(),
  });
export type ApiKeySummary = z.infer<typeof ApiKeySummary>;

export const ApiKeyCreated = z
  .object({
    id: z.string(),
    key: z.string().describe('The full secret. Shown only in this response; stored only as a hash.'),
    prefix: z.string(),
    createdAt: z.string(),
  });
export type ApiKeyCreated = z.infer<typeof ApiKeyCreated>;

export const ApiKeyList = z.object({ keys: z.array(ApiKeySummary) });
export type ApiKeyList = z.infer<typeof ApiKeyList>;

export const CREDIT_PACKAGES = [
  { id: 'lite', name: 'Lite', credits: 300, priceCents: 1990, currency: 'usd' },
  { id: 'standard', name: 'Standard', credits: 550, priceCents: 2999, currency: 'usd' },
  { id: 'pro', name: 'Pro', credits: 1600, priceCents: 7999, currency: 'usd' },
] as const;

/** The ids of CREDIT_PACKAGES, the only place they are written: a new package is one entry there. */
export const CreditPackageId = z.enum(CREDIT_PACKAGES.map((p) => p.id));
export type CreditPackageId = z.infer<typeof CreditPackageId>;

export const CreditPackage = z
  .object({
    id: CreditPackageId,
    name: z.string(),
    credits: z.number().int().positive(),
    priceCents: z.number().int().positive(),
    currency: z.literal('usd'),
  });
export type CreditPackage = z.infer<typeof CreditPackage>;

/** Per-request payment (x402 v2, `exact` scheme) as the server offers it; null when not enabled. */
export const PerRequestPayment = z.object({
  protocol: z.literal('x402'),
  x402Version: z.literal(2),
  scheme: z.literal('exact'),
  network: z.string().describe('CAIP-2 network, e.g. `eip155:84532` (Base Sepolia).'),
  price: z.string().describe('Price of one call as configured, e.g. `$0.01`.'),
  asset: z.string().describe('Token contract the payment is made in (EIP-3009).'),
  amount: z.string().describe('Price in the token\'s atomic units.'),
  payTo: z.string().describe('Address receiving the payments.'),
});
export type PerRequestPayment = z.infer<typeof PerRequestPayment>;

export const CreditPackageList = z.object({
  packages: z.array(CreditPackage),
  paymentMode: z
    .enum(['stripe', 'demo', 'disabled'])
    .optional()
    .describe('How credit packages are paid: Stripe Checkout; demo (credited at once, no money moves); or disabled (no provider, and demo purchases refused because the server is reachable from other machines).'),
  perRequestPayment: PerRequestPayment.nullable().optional().describe(
    'When not null, metered calls without an API key can be paid one by one with x402: a call without credentials is answered 402 with the `PAYMENT-REQUIRED` header; resend it with `PAYMENT-SIGNATURE`.',
  ),
});
export type CreditPackageList = z.infer<typeof CreditPackageList>;

export const CreditPurchaseRequest = z.object({ packageId: CreditPackageId });
export type CreditPurchaseRequest = z.infer<typeof CreditPurchaseRequest>;

export const CreditPurchase = z
  .object({
    id: z.string(),
    packageId: CreditPackageId,
    credits: z.number().int(),
    status: z.enum(['pending', 'paid']),
    mode: z
      .enum(['stripe', 'demo'])
      .describe('`demo`: no payment provider is configured; the purchase completes at once without any payment.'),
    checkoutUrl: z.string().nullable().describe('Stripe Checkout page to send the buyer to (`stripe` mode).'),
    balance: z.number().int().optional().describe('The balance after crediting, when the purchase completed at once.'),
  });
export type CreditPurchase = z.infer<typeof CreditPurchase>;
