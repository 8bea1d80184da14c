/**
 * Where the images of auto-label jobs wait for a worker (issue 38). One interface, two homes:
 * with PostgreSQL an established job queue (pg-boss), so any number of worker processes on any
 * number of machines share the work and a task whose worker died is handed to another after its
 * expiry; with SQLite (one process) an in-process queue, whose tasks are the pending rows of
 * `job_images` read again at start. Either way a task may run more than once (a retry, a worker
 * presumed dead that was only slow): the handler (jobs.ts) makes a second run a no-op.
 */
import { CompiledQuery, type Transaction } from 'kysely';
import PgBoss from 'pg-boss';
import type { Database } from '../../db/schema';

export interface ImageTask {
  jobId: string;
  imageId: string;
}

/** Thrown by a handler when the task should run again later (the engine busy, the call still running elsewhere). */
export class RetryLater extends Error {}

export type TaskHandler = (task: ImageTask) => Promise<void>;

export interface JobQueue {
  readonly description: string;
  /** Called inside the transaction that makes the tasks pending: PostgreSQL queues them in it, all or nothing. */
  enqueue(trx: Transaction<Database>, tasks: readonly ImageTask[]): Promise<void>;
  /** Starts taking tasks, `concurrency` at a time; `pending` lists the tasks left over from before a restart (in-process only). */
  work(handler: TaskHandler, concurrency: number, pending: () => Promise<ImageTask[]>): Promise<void>;
  stop(): Promise<void>;
}

export interface QueueTiming {
  /** Before a task that asked to be retried runs again. */
  retryDelayMs: number;
}

/** SQLite: tasks in memory, their truth in `job_images`; the queue only decides the order. */
export class InProcessQueue implements JobQueue {
  readonly description = 'in-process (SQLite)';
  private readonly waiting: ImageTask[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private handler?: TaskHandler;
  private concurrency = 0;
  private running = 0;
  private idle?: () => void;
  private stopped = false;

  constructor(private readonly timing: QueueTiming = { retryDelayMs: 1000 }) {}

  async enqueue(_trx: Transaction<Database>, tasks: readonly ImageTask[]): Promise<void> {
    // Taken after the transaction commits: SQLite has one connection, so the handler's first read waits for it.
    setImmediate(() => this.push(tasks));
  }

  async work(handler: TaskHandler, concurrency: number, pending: () => Promise<ImageTask[]>): Promise<void> {
    this.handler = handler;
    this.concurrency = concurrency;
    this.push(await pending());
  }

  private push(tasks: readonly ImageTask[]): void {
    if (this.stopped || !this.handler) return;
    this.waiting.push(...tasks);
    this.pump();
  }

  private pump(): void {
    while (!this.stopped && this.handler && this.running < this.concurrency && this.waiting.length) {
      const task = this.waiting.shift()!;
      this.running++;
      this.handler(task)
        .catch(() => {
          const timer = setTimeout(() => {
            this.timers.delete(timer);
            this.push([task]);
          }, this.timing.retryDelayMs);
          this.timers.add(timer);
        })
        .finally(() => {
          this.running--;
          if (this.running === 0) this.idle?.();
          this.pump();
        });
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    if (this.running > 0) await new Promise<void>((resolve) => (this.idle = resolve));
  }
}

export interface PgBossSettings {
  connectionString: string;
  /** Where pg-boss keeps its tables: its own schema, or the deployment's (tests isolate themselves in one). */
  schema: string;
  /** A task whose worker has not finished it by then is presumed dead and retried elsewhere. */
  taskTimeoutSeconds: number;
  /** How often the queue's maintenance looks for such tasks. */
  maintenanceIntervalSeconds: number;
  /** How often an idle worker asks for tasks. */
  pollingIntervalSeconds: number;
  retryDelaySeconds: number;
}

const QUEUE = 'maskwright-auto-label';

/** PostgreSQL: pg-boss, shared by every process on the database. */
export class PgBossQueue implements JobQueue {
  readonly description = 'pg-boss (PostgreSQL)';
  private readonly boss: PgBoss;
  private started?: Promise<void>;
  private workers: string[] = [];

  constructor(private readonly settings: PgBossSettings) {
    this.boss = new PgBoss({
      connectionString: settings.connectionString,
      schema: settings.schema,
      max: 4,
      maintenanceIntervalSeconds: settings.maintenanceIntervalSeconds,
      // Cron schedules are not used: the clock check would only cost queries.
      schedule: false,
    });
    // Errors of its background loops (a lost connection) are retried by pg-boss itself.
    this.boss.on('error', () => undefined);
  }

  start(): Promise<void> {
    return (this.started ??= (async () => {
      await this.boss.start();
      if (!(await this.boss.getQueue(QUEUE))) {
        await this.boss.createQueue(QUEUE).catch(async (error) => {
          // Two processes starting at once: the other one created it.
          if (!(await this.boss.getQueue(QUEUE))) throw error;
        });
      }
    })());
  }

  async enqueue(trx: Transaction<Database>, tasks: readonly ImageTask[]): Promise<void> {
    await this.start();
    const db = {
      executeSql: async (text: string, values: unknown[]) => ({ rows: (await trx.executeQuery(CompiledQuery.raw(text, values))).rows as unknown[] }),
    };
    const { taskTimeoutSeconds, retryDelaySeconds } = this.settings;
    for (let i = 0; i < tasks.length; i += 1000) {
      await this.boss.insert(
        tasks.slice(i, i + 1000).map((data) => ({ name: QUEUE, data, retryLimit: 1000, retryDelay: retryDelaySeconds, expireInSeconds: taskTimeoutSeconds })),
        { db },
      );
    }
  }

  async work(handler: TaskHandler, concurrency: number): Promise<void> {
    await this.start();
    for (let i = 0; i < concurrency; i++) {
      this.workers.push(
        await this.boss.work<ImageTask>(QUEUE, { batchSize: 1, pollingIntervalSeconds: this.settings.pollingIntervalSeconds }, async ([task]) => handler(task.data)),
      );
    }
  }

  async stop(): Promise<void> {
    if (!this.started) return;
    await this.started.catch(() => undefined);
    await this.boss.stop({ graceful: true, wait: true, timeout: 30_000 });
  }
}
