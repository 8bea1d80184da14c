/**
 * Project exports off the event loop: each runs in a worker thread of its own (exportWorker.ts),
 * started for it and ended after it, with a heap limit, so an export of a large project neither
 * stalls other requests nor keeps its memory afterwards. At most `maxRunning` run at once and
 * `maxWaiting` wait; more is answered 503 `service-busy` with Retry-After, nothing started.
 */
import { Worker } from 'node:worker_threads';
import type { ExportFormat } from '../../contract/projects';
import type { ProjectExportFile } from '../domain/projects/datasetExport';
import { DomainError } from '../domain/errors';
import type { ExportAnswer, ProjectDatasetSource } from './protocol';

export interface ExportWorkerOptions {
  maxRunning: number;
  maxWaiting: number;
  /** An export taking longer is stopped (its thread terminated) and answered 503. */
  timeoutMs: number;
  /** The worker's V8 heap limit: an export needing more is stopped and answered 413. */
  maxHeapMb: number;
}

export const DEFAULT_EXPORT_WORKERS: ExportWorkerOptions = { maxRunning: 1, maxWaiting: 8, timeoutMs: 120_000, maxHeapMb: 1536 };

const ENTRY = new URL('./exportWorkerEntry.mjs', import.meta.url);

export class ProjectExports {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly workers = new Set<Worker>();

  constructor(private readonly options: ExportWorkerOptions = DEFAULT_EXPORT_WORKERS) {}

  async run(source: ProjectDatasetSource, format: ExportFormat): Promise<ProjectExportFile> {
    await this.turn();
    try {
      return await this.inWorker(source, format);
    } finally {
      this.running -= 1;
      this.waiting.shift()?.();
    }
  }

  /** Ends the exports still running (their requests fail); for the server's shutdown. */
  async close(): Promise<void> {
    await Promise.all([...this.workers].map((worker) => worker.terminate()));
  }

  private turn(): Promise<void> {
    if (this.running < this.options.maxRunning) {
      this.running += 1;
      return Promise.resolve();
    }
    if (this.waiting.length >= this.options.maxWaiting) {
      return Promise.reject(new DomainError('service-busy', 'as many exports as the server runs at once are running or waiting; try again shortly', { retryAfterSeconds: 5 }));
    }
    // The slot is handed over by the export that ends: `running` stays counted.
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private inWorker(source: ProjectDatasetSource, format: ExportFormat): Promise<ProjectExportFile> {
    return new Promise((resolve, reject) => {
      const worker = new Worker(ENTRY, { workerData: { source, format }, resourceLimits: { maxOldGenerationSizeMb: this.options.maxHeapMb } });
      this.workers.add(worker);
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.workers.delete(worker);
        void worker.terminate();
        outcome();
      };
      const timer = setTimeout(
        () => settle(() => reject(new DomainError('service-busy', `the export took longer than ${this.options.timeoutMs / 1000} s and was stopped`, { retryAfterSeconds: 60 }))),
        this.options.timeoutMs,
      );
      worker.once('message', (answer: ExportAnswer) =>
        settle(() =>
          answer.ok
            ? resolve({ contentType: answer.contentType, fileName: answer.fileName, body: answer.body })
            : reject(new DomainError(answer.slug, answer.detail, { members: answer.members })),
        ),
      );
      worker.once('error', (error: Error & { code?: string }) =>
        settle(() =>
          reject(
            error.code === 'ERR_WORKER_OUT_OF_MEMORY'
              ? new DomainError('annotations-too-large', `the export needed more than the ${this.options.maxHeapMb} MB an export may use`, { members: { rule: 'export-memory', limit: this.options.maxHeapMb } })
              : error,
          ),
        ),
      );
      worker.once('exit', (code) => settle(() => reject(new Error(`the export worker stopped (exit code ${code}) without an answer`))));
    });
  }
}
