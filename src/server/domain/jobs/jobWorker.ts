/**
 * Takes the images of auto-label jobs off the queue in this process (`npm start` on SQLite, a
 * server or `npm run worker` on PostgreSQL), and now and then puts paused jobs whose payer has
 * credits again back on it.
 */
import type { Jobs } from './jobs';
import type { JobQueue } from './queue';

export interface JobWorkerOptions {
  /** Images worked on at once in this process: 0 = this process only queues. */
  concurrency: number;
  /** How often paused jobs are checked for credits. */
  resumeEveryMs: number;
}

export class JobWorker {
  private timer?: NodeJS.Timeout;
  private sweeping = false;

  constructor(
    private readonly jobs: Jobs,
    private readonly queue: JobQueue,
    private readonly options: JobWorkerOptions,
  ) {}

  async start(): Promise<void> {
    if (this.options.concurrency <= 0) return;
    await this.queue.work((task) => this.jobs.runImage(task), this.options.concurrency, () => this.jobs.pendingTasks());
    this.timer = setInterval(() => void this.sweep(), this.options.resumeEveryMs);
    this.timer.unref();
  }

  private async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      await this.jobs.resumePaused();
    } catch {
      // The database is away for a moment: the next sweep tries again.
    } finally {
      this.sweeping = false;
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.queue.stop();
  }
}
