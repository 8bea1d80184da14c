/** Wires the domain together. Tests build it with their own database, clock, faults and backend. */
import type { Db } from '../db/connect';
import type { InferenceBackend } from '../inference/pool';
import { Accounts } from './accounts';
import { ApiKeys } from './api-keys';
import { Billing, DEFAULT_BILLING_OPTIONS, type BillingOptions } from './billing';
import { systemClock, type Clock } from './clock';
import { FaultInjector, type FaultRates } from './faults';
import { newId } from './ids';
import { Payments, type StripeSettings } from './payments';
import { createRateLimiter, type RateLimiter } from './rate-limit';
import { DEFAULT_RECOVERY_OPTIONS, Recovery, type RecoveryOptions } from './recovery';
import { DEFAULT_BUSY_RETRY_AFTER_SECONDS, Segmentation, type SegmentationOptions } from './segmentation';
import { X402Gateway, type X402Settings } from './x402/gateway';
import { PaidCalls } from './x402/paid-calls';

export interface ServicesOptions {
  db: Db;
  backend: InferenceBackend;
  clock?: Clock;
  faults?: FaultRates;
  rateLimitPerSecond: number;
  stripe?: StripeSettings;
  billing?: Partial<BillingOptions>;
  recovery?: Partial<RecoveryOptions>;
  instanceId?: string;
  textUpstream?: SegmentationOptions['textUpstream'];
  /** Per-request payment (x402); absent = disabled. */
  x402?: X402Settings;
}

export interface Services {
  db: Db;
  clock: Clock;
  faults: FaultInjector;
  instanceId: string;
  accounts: Accounts;
  apiKeys: ApiKeys;
  billing: Billing;
  rateLimiter: RateLimiter;
  payments: Payments;
  recovery: Recovery;
  segmentation: Segmentation;
  backend: InferenceBackend;
  /** null when per-request payment is not configured. */
  x402: X402Gateway | null;
}

export function createServices(options: ServicesOptions): Services {
  const clock = options.clock ?? systemClock;
  const faults = new FaultInjector(options.faults ?? {});
  const instanceId = options.instanceId ?? newId('inst');
  const billingOptions = { ...DEFAULT_BILLING_OPTIONS, ...options.billing };
  const billing = new Billing(options.db, clock, faults, instanceId, billingOptions);
  const rateLimiter = createRateLimiter(options.db, clock, options.rateLimitPerSecond);
  const x402 = options.x402 ? new X402Gateway(options.x402) : null;
  const paidCalls = x402
    ? new PaidCalls(options.db, clock, x402, rateLimiter, faults, {
        leaseMs: billingOptions.leaseMs,
        inProgressRetryAfterSeconds: billingOptions.inProgressRetryAfterSeconds,
      })
    : undefined;
  return {
    db: options.db,
    clock,
    faults,
    instanceId,
    accounts: new Accounts(options.db, clock),
    apiKeys: new ApiKeys(options.db, clock),
    billing,
    rateLimiter,
    payments: new Payments(options.db, clock, options.stripe),
    recovery: new Recovery(options.db, clock, billing, instanceId, { ...DEFAULT_RECOVERY_OPTIONS, ...options.recovery }),
    segmentation: new Segmentation(
      billing,
      options.backend,
      { busyRetryAfterSeconds: DEFAULT_BUSY_RETRY_AFTER_SECONDS, textUpstream: options.textUpstream },
      paidCalls,
    ),
    backend: options.backend,
    x402,
  };
}
