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
import { RateLimiter } from './rate-limit';
import { DEFAULT_RECOVERY_OPTIONS, Recovery, type RecoveryOptions } from './recovery';
import { Segmentation, type SegmentationOptions } from './segmentation';

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
  busyRetryAfterSeconds?: number;
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
}

export function createServices(options: ServicesOptions): Services {
  const clock = options.clock ?? systemClock;
  const faults = new FaultInjector(options.faults ?? {});
  const instanceId = options.instanceId ?? newId('inst');
  const billing = new Billing(options.db, clock, faults, instanceId, { ...DEFAULT_BILLING_OPTIONS, ...options.billing });
  return {
    db: options.db,
    clock,
    faults,
    instanceId,
    accounts: new Accounts(options.db, clock),
    apiKeys: new ApiKeys(options.db, clock),
    billing,
    rateLimiter: new RateLimiter(options.db, clock, options.rateLimitPerSecond),
    payments: new Payments(options.db, clock, options.stripe),
    recovery: new Recovery(options.db, clock, billing, instanceId, { ...DEFAULT_RECOVERY_OPTIONS, ...options.recovery }),
    segmentation: new Segmentation(billing, options.backend, {
      busyRetryAfterSeconds: options.busyRetryAfterSeconds ?? 2,
      textUpstream: options.textUpstream,
    }),
    backend: options.backend,
  };
}
