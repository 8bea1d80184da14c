/**
 * A project's heavy work off the event loop: exports, and annotation writes with large bodies or
 * large stored objects (done whole there, the database write included: annotationCommit.ts). Each
 * runs in a worker thread (projectWorker.ts) with a heap limit, so a large project does not stall
 * other requests. At most `maxRunning` run at once and `maxWaiting` wait; more is answered 503
 * `service-busy` with Retry-After, nothing started. A small write is done on the event loop by the
 * caller's `writeHere`: a thread costs more than it. Starting a thread (loading the format writers)
 * takes longer than many jobs, and a thread ended does not give all its memory back to the system,
 * so a thread that answered serves the next job too; threads are ended when no job came for
 * `spareIdleMs`, and at once after a timeout, a crash or running out of heap.
 */
import { Worker } from 'node:worker_threads';
import type { ExportFormat } from '../../contract/projects';
import type { AnnotationWriteJob, AnnotationWriteOutcome } from '../domain/projects/annotationCommit';
import type { ProjectExportFile } from '../domain/projects/datasetExport';
import { prepareLearnedModelWrite, type LearnedModelWriteInput, type PreparedLearnedModel } from '../domain/projects/learnedModelWrite';
import { DomainError } from '../domain/errors';
import type { AnnotationWriteInThread, ProjectDatasetSource, ProjectJob, ProjectJobAnswer, ProjectJobResult } from './protocol';

export interface ExportWorkerOptions {
  maxRunning: number;
  maxWaiting: number;
  /** A job taking longer is stopped (its thread terminated) and answered 503. */
  timeoutMs: number;
  /** The worker's V8 heap limit: a job needing more is stopped and answered 413. */
  maxHeapMb: number;
  /** Writes whose body and stored objects together are up to this many characters are done on the event loop (a few milliseconds). */
  inlineWriteMaxChars: number;
  /** Threads waiting for a job are ended after this long without one. */
  spareIdleMs: number;
}

export const DEFAULT_EXPORT_WORKERS: ExportWorkerOptions = { maxRunning: 1, maxWaiting: 8, timeoutMs: 120_000, maxHeapMb: 1536, inlineWriteMaxChars: 128 * 1024, spareIdleMs: 30_000 };

const ENTRY = new URL('./projectWorkerEntry.mjs', import.meta.url);

/** A worker thread and when it has loaded its code and waits for jobs. */
interface Thread {
  worker: Worker;
  ready: Promise<void>;
}

export class ProjectWorkers {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly workers = new Set<Worker>();
  private readonly idle: Thread[] = [];
  private idleRelease: NodeJS.Timeout | undefined;
  /** Jobs handed to a thread so far, by kind (what the health of the event loop depends on; read by tests). */
  readonly threadJobs = { export: 0, write: 0, learned: 0 };
  private closed = false;

  private readonly options: ExportWorkerOptions;

  constructor(options: Partial<ExportWorkerOptions> = {}) {
    this.options = { ...DEFAULT_EXPORT_WORKERS, ...options };
  }

  export(source: ProjectDatasetSource, format: ExportFormat): Promise<ProjectExportFile> {
    return this.run({ kind: 'export', source, format });
  }

  /**
   * A small write is done by `writeHere` on the event loop (`storedChars`: the length of the image's
   * objects as stored); a large one whole in a thread, its body moved there.
   */
  writeAnnotations(job: AnnotationWriteInThread, storedChars: number, writeHere: (write: AnnotationWriteJob) => Promise<AnnotationWriteOutcome>): Promise<AnnotationWriteOutcome> {
    if (job.write.body.byteLength + storedChars <= this.options.inlineWriteMaxChars) return writeHere(job.write);
    return this.run({ kind: 'write', ...job, write: { ...job.write, body: ownBuffer(job.write.body) } });
  }

  /** Threads started and waiting for a job (read by tests). */
  get idleThreads(): number {
    return this.idle.length;
  }

  /** A learned model's PUT body, parsed and validated: in a thread when it is large (learnedModelWrite.ts). */
  prepareLearnedModel(input: LearnedModelWriteInput): Promise<PreparedLearnedModel> {
    if (input.rawBody.length <= this.options.inlineWriteMaxChars) return Promise.resolve().then(() => prepareLearnedModelWrite(input));
    return this.run({ kind: 'learned', input });
  }

  private async run<J extends ProjectJob>(job: J): Promise<ProjectJobResult<J>> {
    await this.turn();
    this.threadJobs[job.kind] += 1;
    try {
      return (await this.inWorker(job)) as ProjectJobResult<J>;
    } finally {
      this.running -= 1;
      this.waiting.shift()?.();
      if (this.running === 0) this.endIdleThreadsLater();
    }
  }

  private endIdleThreadsLater(): void {
    clearTimeout(this.idleRelease);
    this.idleRelease = setTimeout(() => {
      for (const thread of this.idle.splice(0)) void thread.worker.terminate();
    }, this.options.spareIdleMs);
    this.idleRelease.unref();
  }

  /** Ends the jobs still running (their requests fail); for the server's shutdown. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleRelease);
    const idle = this.idle.splice(0).map((thread) => thread.worker);
    await Promise.all([...this.workers, ...idle].map((worker) => worker.terminate()));
  }

  /** A started thread for the next job: one that served a job before and waits, or a new one. */
  private take(): Thread {
    clearTimeout(this.idleRelease);
    return this.idle.pop() ?? this.start();
  }

  /** A thread whose job answered goes back to wait for the next (its garbage is collected there). */
  private giveBack(thread: Thread): void {
    thread.worker.unref();
    if (this.closed) void thread.worker.terminate();
    else this.idle.push(thread);
  }

  private start(): Thread {
    const worker = new Worker(ENTRY, { resourceLimits: { maxOldGenerationSizeMb: this.options.maxHeapMb } });
    // A thread that fails to start is noticed by the job that takes it (its 'error' or 'exit').
    const ready = new Promise<void>((resolve) => worker.once('message', () => resolve()));
    worker.on('error', () => undefined);
    worker.unref();
    const thread = { worker, ready };
    // One that dies while waiting is not handed the next job.
    worker.once('exit', () => {
      const index = this.idle.indexOf(thread);
      if (index >= 0) this.idle.splice(index, 1);
    });
    return thread;
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

  private inWorker(job: ProjectJob): Promise<ProjectExportFile | AnnotationWriteOutcome | PreparedLearnedModel> {
    return new Promise((resolve, reject) => {
      const thread = this.take();
      const { worker, ready } = thread;
      worker.ref();
      this.workers.add(worker);
      let settled = false;
      /** Ends the job; the thread waits for the next one after an answer, and is ended after anything else. */
      const settle = (answered: boolean, outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        worker.off('message', onAnswer).off('error', onError).off('exit', onExit);
        this.workers.delete(worker);
        if (answered) this.giveBack(thread);
        else void worker.terminate();
        outcome();
      };
      const onAnswer = (answer: ProjectJobAnswer) =>
        settle(true, () => (answer.ok ? resolve(answer.result) : reject(new DomainError(answer.slug, answer.detail, { members: answer.members, errors: answer.errors }))));
      const onError = (error: Error & { code?: string }) =>
        settle(false, () =>
          reject(
            error.code === 'ERR_WORKER_OUT_OF_MEMORY'
              ? new DomainError('annotations-too-large', `the work needed more than the ${this.options.maxHeapMb} MB a project job may use`, { members: { rule: 'job-memory', limit: this.options.maxHeapMb } })
              : error,
          ),
        );
      const onExit = (code: number) => settle(false, () => reject(new Error(`the project worker stopped (exit code ${code}) without an answer`)));
      const timer = setTimeout(
        () => settle(false, () => reject(new DomainError('service-busy', `the work took longer than ${this.options.timeoutMs / 1000} s and was stopped`, { retryAfterSeconds: 60 }))),
        this.options.timeoutMs,
      );
      void ready.then(() => {
        if (settled) return;
        worker.on('message', onAnswer);
        worker.postMessage(job, job.kind === 'write' ? [job.write.body.buffer as ArrayBuffer] : []);
      });
      worker.once('error', onError);
      worker.once('exit', onExit);
    });
  }
}

/**
 * `bytes` alone in an ArrayBuffer of their own, which can then be moved to a thread: a request body
 * usually is (Fastify joins its chunks into a new buffer), a view into a shared one is copied.
 */
function ownBuffer(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
}
