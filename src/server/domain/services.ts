/** Wires the domain together. Tests build it with their own database, clock, faults and backend. */
import type { Db } from '../db/connect';
import type { InferenceBackend } from '../inference/pool';
import { Accounts } from './accounts';
import { AuthThrottles, DEFAULT_AUTH_THROTTLES, type AuthThrottleSettings } from './authThrottles';
import { ApiKeys } from './apiKeys';
import { systemClock, type Clock } from './clock';
import { DEFAULT_FAIRNESS, FairInferenceBackend, type FairnessSettings } from './fairInference';
import { DEFAULT_REFUND_BUDGET, RefundBudget, type RefundBudgetSettings } from './refundBudget';
import { FaultInjector, type FaultRates } from './faults';
import { newId } from './ids';
import { Payments, type StripeSettings } from './payments';
import { createRateLimiter, type RateLimiter } from './rateLimit';
import { DEFAULT_RECOVERY_OPTIONS, Recovery, type RecoveryOptions } from './recovery';
import { DEFAULT_BUSY_RETRY_AFTER_SECONDS, Segmentation, type SegmentationOptions } from './segmentation';
import { X402Gateway, type X402Settings } from './x402/gateway';
import { Credits } from './metered/credits';
import { DEFAULT_PRICES, type Prices } from './pricing';
import { MeteredCalls } from './metered/runner';
import { X402Payments } from './metered/x402';
import { blobStoreFor } from './projects/blobStore';
import { DEFAULT_PROJECT_QUOTA_BYTES, Projects } from './projects/projects';
import { ProjectWorkers } from '../exports/projectWorkers';
import { ProjectEvents, type ListenSettings } from './projects/projectEvents';
import { Jobs } from './jobs/jobs';
import { LearnedModels } from './projects/learnedModels';
import { DEFAULT_LEARNED_MODEL_MAX_BYTES } from '../../contract/learned';
import { InProcessQueue, type JobQueue } from './jobs/queue';

export interface BillingOptions {
  /** How long an attempt may run before another process may consider it orphaned. */
  leaseMs: number;
  /** Retry-After for 409 in-progress / refund-pending answers. */
  inProgressRetryAfterSeconds: number;
  refundBackoffMs: (failedAttempts: number) => number;
}

export const DEFAULT_BILLING_OPTIONS: BillingOptions = {
  leaseMs: 120_000,
  inProgressRetryAfterSeconds: 1,
  refundBackoffMs: (n) => Math.min(60_000, 250 * 2 ** Math.min(n, 8)),
};

export interface ServicesOptions {
  db: Db;
  backend: InferenceBackend;
  clock?: Clock;
  faults?: FaultRates;
  rateLimitPerSecond: number;
  /** Credits per call by pricing key; default 1 for each. */
  prices?: Prices;
  stripe?: StripeSettings;
  /** Without Stripe, whether purchases may complete without payment (false on a non-loopback listener unless DEMO_PAYMENTS=on). */
  demoPayments?: boolean;
  billing?: Partial<BillingOptions>;
  recovery?: Partial<RecoveryOptions>;
  instanceId?: string;
  textUpstream?: SegmentationOptions['textUpstream'];
  /** The header check of an image seen for the first time (inference/imageCheck.ts). */
  checkImage: SegmentationOptions['checkImage'];
  /** Per-request payment (x402); absent = disabled. */
  x402?: X402Settings;
  authThrottles?: AuthThrottleSettings;
  /** Projects: where SQLite keeps image files (beside its database file), and each account's storage quota. */
  projects?: { dataDir: string; quotaBytes: number; learnedModelMaxBytes?: number };
  /** Each account's share of the inference queue; the backend is served through FairInferenceBackend. */
  fairness?: FairnessSettings;
  /** Refunded engine runs allowed per payer and window (REFUND_BUDGET, REFUND_BUDGET_WINDOW_SECONDS). */
  refundBudget?: RefundBudgetSettings;
  /** Where auto-label jobs wait (issue 38): pg-boss with PostgreSQL; in-process by default. */
  jobQueue?: JobQueue;
  /** PostgreSQL: the connection that LISTENs for other processes' project events. */
  eventsListen?: ListenSettings;
}

export interface Services {
  db: Db;
  clock: Clock;
  faults: FaultInjector;
  instanceId: string;
  accounts: Accounts;
  authThrottles: AuthThrottles;
  apiKeys: ApiKeys;
  /** Paying with credits: the ledger side of metered calls (refunds, recovery). */
  credits: Credits;
  rateLimiter: RateLimiter;
  payments: Payments;
  recovery: Recovery;
  segmentation: Segmentation;
  /** The inference backend behind the fair queue (per-account admission and order). */
  backend: InferenceBackend;
  /** null when per-request payment is not configured. */
  x402: X402Gateway | null;
  projects: Projects;
  /** A project's heavy work (exports, large annotation writes), each in a worker thread of its own (exports/projectWorkers.ts). */
  projectWorkers: ProjectWorkers;
  projectEvents: ProjectEvents;
  jobQueue: JobQueue;
  jobs: Jobs;
  learnedModels: LearnedModels;
}

export function createServices(options: ServicesOptions): Services {
  const clock = options.clock ?? systemClock;
  const faults = new FaultInjector(options.faults ?? {});
  const instanceId = options.instanceId ?? newId('inst');
  const billingOptions = { ...DEFAULT_BILLING_OPTIONS, ...options.billing };
  const credits = new Credits(options.db, clock, faults, instanceId, billingOptions);
  const rateLimiter = createRateLimiter(options.db, clock, options.rateLimitPerSecond);
  const backend = new FairInferenceBackend(options.backend, options.fairness ?? DEFAULT_FAIRNESS);
  const x402 = options.x402 ? new X402Gateway(options.x402) : null;
  const x402Payments = x402 ? new X402Payments(options.db, clock, x402, { leaseMs: billingOptions.leaseMs }) : undefined;
  const runner = new MeteredCalls(faults, {
    inProgressRetryAfterSeconds: billingOptions.inProgressRetryAfterSeconds,
    backlog: () => backend.backlog(),
    refundBudget: new RefundBudget(options.db, clock, options.refundBudget ?? DEFAULT_REFUND_BUDGET),
  });
  const projectWorkers = new ProjectWorkers();
  const prices = options.prices ?? DEFAULT_PRICES;
  const projectEvents = new ProjectEvents(options.db, clock, options.eventsListen);
  const projects = new Projects(options.db, clock, blobStoreFor(options.db, options.projects?.dataDir ?? './data'), {
    quotaBytes: options.projects?.quotaBytes ?? DEFAULT_PROJECT_QUOTA_BYTES,
    checkImage: options.checkImage,
    writeAnnotations: (job, storedChars, writeHere) => projectWorkers.writeAnnotations(job, storedChars, writeHere),
    events: projectEvents,
  });
  const segmentation = new Segmentation(
    runner,
    credits,
    backend,
    {
      busyRetryAfterSeconds: DEFAULT_BUSY_RETRY_AFTER_SECONDS,
      checkImage: options.checkImage,
      textUpstream: options.textUpstream,
      prices,
    },
    x402Payments,
  );
  const jobQueue = options.jobQueue ?? new InProcessQueue();
  const learnedModels = new LearnedModels(options.db, clock, projects, projectEvents, options.projects?.learnedModelMaxBytes ?? DEFAULT_LEARNED_MODEL_MAX_BYTES, (input) => projectWorkers.prepareLearnedModel(input));
  return {
    db: options.db,
    clock,
    faults,
    instanceId,
    accounts: new Accounts(options.db, clock),
    authThrottles: new AuthThrottles(options.db, clock, options.authThrottles ?? DEFAULT_AUTH_THROTTLES),
    apiKeys: new ApiKeys(options.db, clock),
    credits,
    rateLimiter,
    payments: new Payments(options.db, clock, options.stripe, options.demoPayments ?? true),
    recovery: new Recovery(options.db, clock, credits, instanceId, { ...DEFAULT_RECOVERY_OPTIONS, ...options.recovery }),
    segmentation,
    backend,
    x402,
    projectWorkers,
    projects,
    projectEvents,
    jobQueue,
    jobs: new Jobs(options.db, clock, projects, segmentation, projectEvents, jobQueue, prices, learnedModels),
    learnedModels,
  };
}
