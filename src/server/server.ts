/**
 * Starting and stopping one server process: database, inference pool, domain, background
 * recovery, HTTP. `main.ts` calls it with the environment's config; tests call it with theirs.
 */
import { createUpstreamTextSegmenter } from '../engine/text/upstream';
import { dirname } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { ServerConfig } from './config';
import { openDatabase, type Db, type OpenDatabaseOptions } from './db/connect';
import type { Clock } from './domain/clock';
import { createServices, type Services, type ServicesOptions } from './domain/services';
import { buildApp } from './http/app';
import { checkImageHeader } from './inference/imageCheck';
import { demoPaymentsAllowed } from './domain/demoPayments';
import { WorkerPool, type InferenceBackend } from './inference/pool';
import { InProcessQueue, PgBossQueue, type JobQueue } from './domain/jobs/queue';
import { JobWorker } from './domain/jobs/jobWorker';

export interface RunningServer {
  app: FastifyInstance;
  services: Services;
  url: string;
  /** Graceful: stop accepting, drain in-flight requests, stop loops, close workers and database. */
  close(): Promise<void>;
}

export interface StartOptions {
  config: ServerConfig;
  database?: OpenDatabaseOptions;
  /** Share one inference backend between several servers in a test. */
  backend?: InferenceBackend;
  clock?: Clock;
  logger?: boolean;
  /** false: do not start the background loops (tests drive `recovery.sweepOnce()` themselves). */
  backgroundLoops?: boolean;
  services?: Partial<Pick<ServicesOptions, 'billing' | 'recovery' | 'instanceId'>>;
}

/** The jobs' queue: pg-boss on PostgreSQL (its own schema, or a test's), in-process on SQLite. */
function jobQueueFor(config: ServerConfig, database: OpenDatabaseOptions): JobQueue {
  if (!database.databaseUrl) return new InProcessQueue();
  return new PgBossQueue({
    connectionString: database.databaseUrl,
    schema: database.pgSchema ?? 'pgboss',
    taskTimeoutSeconds: config.jobs.taskTimeoutSeconds,
    maintenanceIntervalSeconds: config.jobs.maintenanceSeconds,
    pollingIntervalSeconds: 0.5,
    retryDelaySeconds: 1,
  });
}

/** Database, inference pool and domain, as a server and a job worker process both need them. */
async function openServices(options: StartOptions): Promise<{ services: Services; backend: InferenceBackend; ownBackend: boolean; jobWorker: JobWorker }> {
  const { config } = options;
  const database = options.database ?? { databaseUrl: config.databaseUrl, dataDir: config.dataDir, pgSchema: config.databaseSchema };
  const db: Db = await openDatabase(database);
  const ownBackend = !options.backend;
  const backend =
    options.backend ??
    new WorkerPool({
      workers: config.inference.workers,
      maxQueue: config.inference.maxQueue,
      threads: config.inference.threads,
      jobTimeoutMs: config.inference.jobTimeoutMs,
      embeddingCacheSize: config.inference.embeddingCacheSize,
      modelDir: config.modelDir,
      encoderPrecision: config.inference.encoderPrecision,
      decoderPrecision: config.inference.decoderPrecision,
    });
  const services = createServices({
    db,
    backend,
    clock: options.clock,
    faults: config.faults,
    rateLimitPerSecond: config.rateLimitPerSecond,
    prices: config.prices,
    stripe: config.stripe,
    textUpstream: config.textUpstream && {
      segmenter: createUpstreamTextSegmenter({ url: config.textUpstream.url, apiKey: config.textUpstream.apiKey, timeoutMs: config.textUpstream.timeoutMs }),
      maxInFlight: config.textUpstream.maxInFlight,
    },
    x402: config.x402,
    checkImage: checkImageHeader,
    authThrottles: config.authThrottles,
    fairness: config.fairness,
    refundBudget: config.refundBudget,
    demoPayments: demoPaymentsAllowed(config.host, config.demoPaymentsEverywhere),
    // Image files live beside the SQLite file (DATA_DIR, or a test's own file's folder).
    projects: { dataDir: options.database?.sqliteFile ? dirname(options.database.sqliteFile) : config.dataDir, quotaBytes: config.projectQuotaBytes, learnedModelMaxBytes: config.learnedModelMaxBytes },
    jobQueue: jobQueueFor(config, database),
    eventsListen: database.databaseUrl ? { connectionString: database.databaseUrl, schema: database.pgSchema } : undefined,
    billing: { leaseMs: config.attemptLeaseSeconds * 1000 },
    ...options.services,
  });
  await services.recovery.register();
  if (options.backgroundLoops !== false) services.recovery.start();
  const jobWorker = new JobWorker(services.jobs, services.jobQueue, { concurrency: config.jobs.concurrency, resumeEveryMs: config.jobs.resumeSeconds * 1000 });
  await jobWorker.start();
  return { services, backend, ownBackend, jobWorker };
}

export async function startServer(options: StartOptions): Promise<RunningServer> {
  const { config } = options;
  const { services, backend, ownBackend, jobWorker } = await openServices(options);

  const lifecycle = { draining: false };
  const app = await buildApp({
    lifecycle,
    services,
    cookies: { secure: config.cookieSecure },
    trustProxy: config.trustProxy,
    staticDir: config.staticDir,
    healthToken: config.healthToken,
    deadlines: config.deadlines,
    security: { hstsMaxAgeSeconds: config.hstsMaxAgeSeconds },
    logger: options.logger === false ? false : { level: config.logLevel },
  });
  const address = await app.listen({ port: config.port, host: config.host });
  const url = address.replace('[::1]', 'localhost').replace('0.0.0.0', 'localhost');

  let closing: Promise<void> | undefined;
  return {
    app,
    services,
    url,
    close: () =>
      (closing ??= (async () => {
        lifecycle.draining = true;
        await app.close();
        await closeServices(services, jobWorker, ownBackend ? backend : undefined);
      })()),
  };
}

async function closeServices(services: Services, jobWorker: JobWorker, backend?: InferenceBackend): Promise<void> {
  await jobWorker.stop();
  await services.recovery.stop();
  await services.projectWorkers.close();
  await services.projectEvents.close();
  if (backend) await backend.close();
  await services.db.close();
}

export interface RunningWorker {
  services: Services;
  close(): Promise<void>;
}

/**
 * `npm run worker`: a process that only works the job queue (and the recovery of metered calls),
 * without HTTP. Needs PostgreSQL: with SQLite the server works its jobs itself.
 */
export async function startJobWorker(options: StartOptions): Promise<RunningWorker> {
  const database = options.database ?? { databaseUrl: options.config.databaseUrl, pgSchema: options.config.databaseSchema };
  if (!database.databaseUrl) throw new Error('npm run worker needs DATABASE_URL (PostgreSQL); with SQLite, npm start runs the jobs in its own process');
  const { services, backend, ownBackend, jobWorker } = await openServices({ ...options, database });
  let closing: Promise<void> | undefined;
  return { services, close: () => (closing ??= closeServices(services, jobWorker, ownBackend ? backend : undefined)) };
}
