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

export async function startServer(options: StartOptions): Promise<RunningServer> {
  const { config } = options;
  const db: Db = await openDatabase(options.database ?? { databaseUrl: config.databaseUrl, dataDir: config.dataDir });
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
    projects: { dataDir: options.database?.sqliteFile ? dirname(options.database.sqliteFile) : config.dataDir, quotaBytes: config.projectQuotaBytes },
    ...options.services,
  });
  await services.recovery.register();
  if (options.backgroundLoops !== false) services.recovery.start();

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
        await services.recovery.stop();
        await services.projectWorkers.close();
        if (ownBackend) await backend.close();
        await db.close();
      })()),
  };
}
