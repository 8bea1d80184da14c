/**
 * A project's heavy work off the event loop: exports, and annotation writes with large bodies. Each
 * runs in a worker thread of its own (projectWorker.ts), started for it and ended after it, with a
 * heap limit, so a large project neither stalls other requests nor keeps its memory afterwards.
 * At most `maxRunning` run at once and `maxWaiting` wait; more is answered 503 `service-busy` with
 * Retry-After, nothing started. A small write (its body and the objects stored before it) is done
 * at once, here: a thread costs more than it. Starting a thread (loading the format writers) takes
 * longer than many jobs, so once the pool has been used it keeps one thread started and waiting for
 * the next job, and ends it when no job came for `spareIdleMs` (its heap goes back with it).
 */
import { Worker } from 'node:worker_threads';
import type { ExportFormat } from '../../contract/projects';
import { prepareAnnotationWrite, type PreparedAnnotationWrite } from '../domain/projects/annotationWrite';
import type { ProjectExportFile } from '../domain/projects/datasetExport';
import { DomainError } from '../domain/errors';
import type { AnnotationWriteJob, ProjectDatasetSource, ProjectJob, ProjectJobAnswer, ProjectJobResult } from './protocol';

export interface ExportWorkerOptions {
  maxRunning: number;
  maxWaiting: number;
  /** A job taking longer is stopped (its thread terminated) and answered 503. */
  timeoutMs: number;
  /** The worker's V8 heap limit: a job needing more is stopped and answered 413. */
  maxHeapMb: number;
  /** Writes whose body and stored objects together are up to this many characters are prepared on the event loop (a few milliseconds). */
  inlineWriteMaxChars: number;
  /** The spare thread is ended after this long without a job. */
  spareIdleMs: number;
}

export const DEFAULT_EXPORT_WORKERS: ExportWorkerOptions = { maxRunning: 1, maxWaiting: 8, timeoutMs: 120_000, maxHeapMb: 1536, inlineWriteMaxChars: 128 * 1024, spareIdleMs: 30_000 };

const ENTRY = new URL('./projectWorkerEntry.mjs', import.meta.url);

export class ProjectWorkers {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly workers = new Set<Worker>();
  private spare: { worker: Worker; ready: Promise<void> } | undefined;
  private spareRelease: NodeJS.Timeout | undefined;
  /** Jobs handed to a thread so far, by kind (what the health of the event loop depends on; read by tests). */
  readonly threadJobs = { export: 0, write: 0 };
  private closed = false;

  private readonly options: ExportWorkerOptions;

  constructor(options: Partial<ExportWorkerOptions> = {}) {
    this.options = { ...DEFAULT_EXPORT_WORKERS, ...options };
  }

  export(source: ProjectDatasetSource, format: ExportFormat): Promise<ProjectExportFile> {
    return this.run({ kind: 'export', source, format });
  }

  /**
   * A small write is prepared here, with the stored objects `readStored` reads (`storedChars` long);
   * a large one in a thread that reads them itself.
   */
  prepareWrite(job: AnnotationWriteJob, storedChars: number, readStored: () => Promise<string>): Promise<PreparedAnnotationWrite> {
    if (job.input.rawBody.length + storedChars <= this.options.inlineWriteMaxChars) {
      return readStored().then((storedObjectsJson) => prepareAnnotationWrite({ ...job.input, storedObjectsJson }));
    }
    return this.run({ kind: 'write', ...job });
  }

  /** Threads started and waiting for a job (0 or 1; read by tests). */
  get spareThreads(): number {
    return this.spare ? 1 : 0;
  }

  private async run<J extends ProjectJob>(job: J): Promise<ProjectJobResult<J>> {
    await this.turn();
    this.threadJobs[job.kind] += 1;
    try {
      return (await this.inWorker(job)) as ProjectJobResult<J>;
    } finally {
      this.running -= 1;
      this.waiting.shift()?.();
      if (this.running === 0) this.releaseSpareWhenIdle();
    }
  }

  private releaseSpareWhenIdle(): void {
    clearTimeout(this.spareRelease);
    this.spareRelease = setTimeout(() => {
      const spare = this.spare;
      this.spare = undefined;
      void spare?.worker.terminate();
    }, this.options.spareIdleMs);
    this.spareRelease.unref();
  }

  /** Ends the jobs still running (their requests fail); for the server's shutdown. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.spareRelease);
    const spare = this.spare?.worker;
    this.spare = undefined;
    await Promise.all([...this.workers, ...(spare ? [spare] : [])].map((worker) => worker.terminate()));
  }

  /** A started thread for the next job: the spare if there is one (a new spare is started behind it). */
  private take(): { worker: Worker; ready: Promise<void> } {
    clearTimeout(this.spareRelease);
    const taken = this.spare ?? this.start();
    this.spare = this.closed ? undefined : this.start();
    return taken;
  }

  private start(): { worker: Worker; ready: Promise<void> } {
    const worker = new Worker(ENTRY, { resourceLimits: { maxOldGenerationSizeMb: this.options.maxHeapMb } });
    // A spare that fails to start is noticed by the job that takes it (its 'error' or 'exit').
    const ready = new Promise<void>((resolve) => worker.once('message', () => resolve()));
    worker.on('error', () => undefined);
    worker.unref();
    return { worker, ready };
  }

  private turn(): Promise<void> {
    if (this.running < this.options.maxRunning) {
      this.running += 1;
      return Promise.resolve();
    }
    if (this.waiting.length >= this.options.maxWaiting) {
      return Promise.reject(new DomainError('service-busy', 'as many exports and large writes as the server runs at once are running or waiting; try again shortly', { retryAfterSeconds: 5 }));
    }
    // The slot is handed over by the export that ends: `running` stays counted.
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private inWorker(job: ProjectJob): Promise<ProjectExportFile | PreparedAnnotationWrite> {
    return new Promise((resolve, reject) => {
      const { worker, ready } = this.take();
      worker.ref();
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
        () => settle(() => reject(new DomainError('service-busy', `the work took longer than ${this.options.timeoutMs / 1000} s and was stopped`, { retryAfterSeconds: 60 }))),
        this.options.timeoutMs,
      );
      void ready.then(() => {
        worker.once('message', (answer: ProjectJobAnswer) =>
          settle(() => (answer.ok ? resolve(answer.result) : reject(new DomainError(answer.slug, answer.detail, { members: answer.members, errors: answer.errors })))),
        );
        worker.postMessage(job);
      });
      worker.once('error', (error: Error & { code?: string }) =>
        settle(() =>
          reject(
            error.code === 'ERR_WORKER_OUT_OF_MEMORY'
              ? new DomainError('annotations-too-large', `the work needed more than the ${this.options.maxHeapMb} MB a project job may use`, { members: { rule: 'job-memory', limit: this.options.maxHeapMb } })
              : error,
          ),
        ),
      );
      worker.once('exit', (code) => settle(() => reject(new Error(`the project worker stopped (exit code ${code}) without an answer`))));
    });
  }
}
