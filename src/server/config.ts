/** Every setting comes from the environment (see src/server/README.md). */
import { availableParallelism } from 'node:os';
import { LIMITS } from '../contract/limits';
import { parseFaultInjection, type FaultRates } from './domain/faults';
import type { StripeSettings } from './domain/payments';
import { DEFAULT_AUTH_THROTTLES, type AuthThrottleSettings } from './domain/authThrottles';
import type { X402Settings } from './domain/x402/gateway';
import type { ModelPrecision } from '../engine/adapters/ortNode';
import { parsePrices, type Prices } from './domain/pricing';
import { DEFAULT_FAIRNESS, type FairnessSettings } from './domain/fairInference';
import { DEFAULT_REFUND_BUDGET, type RefundBudgetSettings } from './domain/refundBudget';
import { DEFAULT_DEADLINES, checkDeadlines, type Deadlines } from './http/deadlines';
import { DEFAULT_PROJECT_QUOTA_BYTES } from './domain/projects/projects';
import { DEFAULT_LEARNED_MODEL_MAX_BYTES } from '../contract/learned';

export interface ServerConfig {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl?: string;
  /** DATABASE_SCHEMA: the PostgreSQL schema of this deployment (its tables, and pg-boss's), when not the default one. */
  databaseSchema?: string;
  /** PROJECT_QUOTA_BYTES: bytes of project images an account may store (each distinct file once). */
  projectQuotaBytes: number;
  /** LEARNED_MODEL_MAX_BYTES: the largest learned model a project may store (the PUT body); larger → 413. */
  learnedModelMaxBytes: number;
  /** Directory of the built SPA (vite build); served when it exists. */
  staticDir: string;
  modelDir?: string;
  /** Secure attribute on cookies: "auto" = when the request came over https (X-Forwarded-Proto with trustProxy). */
  cookieSecure: boolean | 'auto';
  trustProxy: boolean;
  rateLimitPerSecond: number;
  /** PRICES: credits per call by pricing key (domain/pricing.ts). */
  prices: Prices;
  /** LOGIN_FREE_ATTEMPTS, LOGIN_FREE_ATTEMPTS_PER_ADDRESS, LOGIN_FREE_ATTEMPTS_PER_ACCOUNT, SIGNUP_FREE_PER_ADDRESS. */
  authThrottles: AuthThrottleSettings;
  inference: {
    workers: number;
    maxQueue: number;
    threads: number;
    jobTimeoutMs: number;
    embeddingCacheSize: number;
    /** INFERENCE_ENCODER / INFERENCE_DECODER: fp32 or int8 model variants (docs/RESULTS.md has the speed and quality of each). */
    encoderPrecision: ModelPrecision;
    decoderPrecision: ModelPrecision;
  };
  /** INFERENCE_ACCOUNT_QUEUE, INFERENCE_ACCOUNT_CONCURRENCY: each account's share of the inference queue (domain/fairInference.ts). */
  fairness: FairnessSettings;
  /** REFUND_BUDGET, REFUND_BUDGET_WINDOW_SECONDS: refunded engine runs allowed per payer and window (domain/refundBudget.ts). */
  refundBudget: RefundBudgetSettings;
  /** HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS: how long a client may take (http/deadlines.ts). */
  deadlines: Deadlines;
  /** HSTS_MAX_AGE_SECONDS: Strict-Transport-Security for deployments behind TLS. */
  hstsMaxAgeSeconds?: number;
  faults: FaultRates;
  stripe?: StripeSettings;
  /** DEMO_PAYMENTS=on: demo purchases (no Stripe) even on a non-loopback listener. */
  demoPaymentsEverywhere: boolean;
  /** HEALTH_TOKEN: `Authorization: Bearer <it>` shows health details to a non-loopback caller. */
  healthToken?: string;
  /** Per-request payment (x402), enabled by X402_PAY_TO. */
  x402?: X402Settings;
  publicBaseUrl?: string;
  logLevel: string;
  /**
   * Auto-label jobs (issue 38). JOB_CONCURRENCY: images this process works on at once (0: it only
   * queues, as an HTTP server in front of `npm run worker` processes would); default one per
   * inference worker. JOB_TASK_TIMEOUT_SECONDS: a task not finished by then (its worker died) is
   * handed to another worker (pg-boss); JOB_MAINTENANCE_SECONDS: how often pg-boss looks for such
   * tasks; JOB_RESUME_SECONDS: how often paused jobs are checked for new credits.
   */
  jobs: { concurrency: number; taskTimeoutSeconds: number; maintenanceSeconds: number; resumeSeconds: number };
  /** ATTEMPT_LEASE_SECONDS: after this a metered call still `running` counts as abandoned by a dead process (its key is free again, its charge refunded). */
  attemptLeaseSeconds: number;
  /** TEXT_UPSTREAM_*: text prompts forwarded to a SAM-3-class server (Roboflow's sam3/concept_segment wire format). */
  textUpstream?: { url: string; apiKey?: string; timeoutMs: number; maxInFlight: number };
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value)) throw new Error(`${name} must be a number, got "${raw}"`);
  return value;
}

function positive(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = int(env, name, fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number ≥ 1, got "${env[name]}"`);
  return value;
}

/**
 * The variants the server runs unless told otherwise: int8 only where `npm run bench` measured it
 * faster in Node on the same run and `npm run eval` kept quality inside the gate (docs/RESULTS.md).
 */
export const SERVER_DEFAULT_PRECISION: { encoder: ModelPrecision; decoder: ModelPrecision } = { encoder: 'int8', decoder: 'fp32' };

function precision(env: NodeJS.ProcessEnv, name: string, fallback: ModelPrecision): ModelPrecision {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw !== 'fp32' && raw !== 'int8') throw new Error(`${name} must be fp32 or int8, got "${raw}"`);
  return raw;
}

/** Beyond this many workers, each one's own caches (embeddings, decoded photos) cost more memory than the parallelism gains. */
const MAX_DEFAULT_WORKERS = 8;

/**
 * The inference pool's shape on a machine with `cores` cores: one single-threaded worker per core
 * (up to MAX_DEFAULT_WORKERS), the rest as threads. Several workers because an encoder run cannot be
 * interrupted: with one worker, every click waits behind any account's new photo; with two or more,
 * the fair backend keeps one account's long jobs to one worker and the clicks find another. One
 * thread each because a decoder run of a click is too small to split well: two threads cost more
 * CPU per click than they save in time, and on a busy server CPU is the limit (docs/RESULTS.md).
 */
export function defaultInferenceLayout(cores: number, workers = Math.min(cores, MAX_DEFAULT_WORKERS)): { workers: number; threads: number } {
  const count = Math.max(1, workers);
  return { workers: count, threads: Math.max(1, Math.floor(cores / count)) };
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const cores = availableParallelism();
  const layout = defaultInferenceLayout(cores, env.INFERENCE_WORKERS ? int(env, 'INFERENCE_WORKERS', 1) : undefined);
  const publicBaseUrl = env.PUBLIC_BASE_URL?.replace(/\/$/, '');
  const stripeKey = env.STRIPE_SECRET_KEY;
  let stripe: StripeSettings | undefined;
  if (stripeKey) {
    if (!env.STRIPE_WEBHOOK_SECRET) throw new Error('STRIPE_SECRET_KEY is set but STRIPE_WEBHOOK_SECRET is not');
    const base = publicBaseUrl ?? `http://localhost:${int(env, 'PORT', 8080)}`;
    stripe = {
      secretKey: stripeKey,
      webhookSecret: env.STRIPE_WEBHOOK_SECRET,
      successUrl: env.STRIPE_SUCCESS_URL ?? `${base}/?purchase=success&session_id={CHECKOUT_SESSION_ID}`,
      cancelUrl: env.STRIPE_CANCEL_URL ?? `${base}/?purchase=cancelled`,
      ...(env.STRIPE_API_HOST
        ? {
            api: {
              host: env.STRIPE_API_HOST,
              port: int(env, 'STRIPE_API_PORT', 443),
              protocol: env.STRIPE_API_PROTOCOL === 'http' ? 'http' : 'https',
            },
          }
        : {}),
    };
  }
  const secure = env.COOKIE_SECURE ?? 'auto';
  const x402 = x402FromEnv(env, publicBaseUrl);
  return {
    port: int(env, 'PORT', 8080),
    // Loopback unless opened up: the zero-configuration demo is for a person on their own machine.
    host: env.HOST || '127.0.0.1',
    dataDir: env.DATA_DIR ?? './data',
    databaseUrl: env.DATABASE_URL || undefined,
    databaseSchema: env.DATABASE_SCHEMA || undefined,
    jobs: {
      concurrency: env.JOB_CONCURRENCY === '0' ? 0 : positive(env, 'JOB_CONCURRENCY', layout.workers),
      taskTimeoutSeconds: positive(env, 'JOB_TASK_TIMEOUT_SECONDS', 120),
      maintenanceSeconds: positive(env, 'JOB_MAINTENANCE_SECONDS', 15),
      resumeSeconds: positive(env, 'JOB_RESUME_SECONDS', 2),
    },
    attemptLeaseSeconds: positive(env, 'ATTEMPT_LEASE_SECONDS', 120),
    projectQuotaBytes: int(env, 'PROJECT_QUOTA_BYTES', DEFAULT_PROJECT_QUOTA_BYTES),
    learnedModelMaxBytes: positive(env, 'LEARNED_MODEL_MAX_BYTES', DEFAULT_LEARNED_MODEL_MAX_BYTES),
    staticDir: env.STATIC_DIR ?? 'dist',
    modelDir: env.MODEL_DIR || undefined,
    cookieSecure: secure === 'auto' ? 'auto' : secure === 'true',
    trustProxy: env.TRUST_PROXY === 'true',
    rateLimitPerSecond: int(env, 'RATE_LIMIT_PER_SECOND', LIMITS.requestsPerSecondPerUser),
    prices: parsePrices(env.PRICES),
    authThrottles: {
      loginFreePerAccountAndAddress: int(env, 'LOGIN_FREE_ATTEMPTS', DEFAULT_AUTH_THROTTLES.loginFreePerAccountAndAddress),
      loginFreePerAccount: int(env, 'LOGIN_FREE_ATTEMPTS_PER_ACCOUNT', DEFAULT_AUTH_THROTTLES.loginFreePerAccount),
      loginFreePerAddress: int(env, 'LOGIN_FREE_ATTEMPTS_PER_ADDRESS', DEFAULT_AUTH_THROTTLES.loginFreePerAddress),
      signupFreePerAddress: int(env, 'SIGNUP_FREE_PER_ADDRESS', DEFAULT_AUTH_THROTTLES.signupFreePerAddress),
    },
    inference: {
      workers: layout.workers,
      maxQueue: int(env, 'INFERENCE_QUEUE', 8),
      threads: int(env, 'INFERENCE_THREADS', layout.threads),
      jobTimeoutMs: int(env, 'INFERENCE_TIMEOUT_MS', 60_000),
      embeddingCacheSize: int(env, 'EMBEDDING_CACHE_SIZE', 16),
      encoderPrecision: precision(env, 'INFERENCE_ENCODER', SERVER_DEFAULT_PRECISION.encoder),
      decoderPrecision: precision(env, 'INFERENCE_DECODER', SERVER_DEFAULT_PRECISION.decoder),
    },
    fairness: {
      ...DEFAULT_FAIRNESS,
      perAccountQueued: positive(env, 'INFERENCE_ACCOUNT_QUEUE', DEFAULT_FAIRNESS.perAccountQueued),
      perAccountRunning: positive(env, 'INFERENCE_ACCOUNT_CONCURRENCY', DEFAULT_FAIRNESS.perAccountRunning),
    },
    refundBudget: {
      limit: positive(env, 'REFUND_BUDGET', DEFAULT_REFUND_BUDGET.limit),
      windowMs: positive(env, 'REFUND_BUDGET_WINDOW_SECONDS', DEFAULT_REFUND_BUDGET.windowMs / 1000) * 1000,
    },
    deadlines: checkDeadlines({
      headersTimeoutMs: int(env, 'HEADERS_TIMEOUT_MS', DEFAULT_DEADLINES.headersTimeoutMs),
      requestTimeoutMs: int(env, 'REQUEST_TIMEOUT_MS', DEFAULT_DEADLINES.requestTimeoutMs),
      keepAliveTimeoutMs: int(env, 'KEEP_ALIVE_TIMEOUT_MS', DEFAULT_DEADLINES.keepAliveTimeoutMs),
    }),
    hstsMaxAgeSeconds: env.HSTS_MAX_AGE_SECONDS ? int(env, 'HSTS_MAX_AGE_SECONDS', 0) : undefined,
    faults: parseFaultInjection(env.FAULT_INJECTION),
    stripe,
    demoPaymentsEverywhere: env.DEMO_PAYMENTS === 'on',
    healthToken: env.HEALTH_TOKEN || undefined,
    x402,
    publicBaseUrl,
    logLevel: env.LOG_LEVEL ?? 'info',
    textUpstream: env.TEXT_UPSTREAM_URL
      ? {
          url: new URL(env.TEXT_UPSTREAM_URL).toString(),
          apiKey: env.TEXT_UPSTREAM_API_KEY || undefined,
          timeoutMs: int(env, 'TEXT_UPSTREAM_TIMEOUT_MS', 30_000),
          maxInFlight: int(env, 'TEXT_UPSTREAM_MAX_IN_FLIGHT', 16),
        }
      : undefined,
  };
}

/**
 * x402 is off unless X402_PAY_TO is set; then network, price and facilitator are required — a
 * half-configured payment mode fails at start, not at the first customer.
 */
function x402FromEnv(env: NodeJS.ProcessEnv, publicBaseUrl: string | undefined): X402Settings | undefined {
  const payTo = env.X402_PAY_TO;
  if (!payTo) return undefined;
  const missing = ['X402_NETWORK', 'X402_PRICE', 'X402_FACILITATOR_URL'].filter((name) => !env[name]);
  if (missing.length) throw new Error(`X402_PAY_TO is set but ${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} not`);
  if (!/^0x[0-9a-fA-F]{40}$/.test(payTo)) throw new Error(`X402_PAY_TO must be an EVM address (0x + 40 hex digits), got "${payTo}"`);
  const network = env.X402_NETWORK!;
  if (!/^eip155:\d+$/.test(network)) throw new Error(`X402_NETWORK must be a CAIP-2 EVM network like eip155:84532, got "${network}"`);
  const price = env.X402_PRICE!;
  const assetAddress = env.X402_ASSET;
  let asset: X402Settings['asset'];
  if (assetAddress) {
    if (!/^\d+$/.test(price)) throw new Error(`with X402_ASSET, X402_PRICE is in the token's atomic units (an integer), got "${price}"`);
    if (!env.X402_ASSET_NAME || !env.X402_ASSET_VERSION) throw new Error('X402_ASSET needs X402_ASSET_NAME and X402_ASSET_VERSION (its EIP-712 domain)');
    asset = { address: assetAddress, name: env.X402_ASSET_NAME, version: env.X402_ASSET_VERSION };
  } else if (!/^\$?\d+(\.\d+)?$/.test(price)) {
    throw new Error(`X402_PRICE must be a USD amount like $0.01 (or atomic units with X402_ASSET), got "${price}"`);
  }
  return {
    payTo,
    network: network as X402Settings['network'],
    price,
    asset,
    facilitatorUrl: env.X402_FACILITATOR_URL!.replace(/\/$/, ''),
    facilitatorTimeoutMs: int(env, 'X402_FACILITATOR_TIMEOUT_MS', 30_000),
    maxTimeoutSeconds: int(env, 'X402_MAX_TIMEOUT_SECONDS', 300),
    publicBaseUrl,
  };
}
