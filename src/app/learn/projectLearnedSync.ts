/**
 * A server project's learned model kept in step with the session's learner (issue 37, item 6):
 * opening the project loads its model into the learner; each change of the learner is written back
 * a moment later, on the revision it was learned from. When another studio wrote first (409), the
 * newer model is read and takes the place of this one, and the lessons this browser taught since
 * the last read or write are taught into it again from the document, then written: both sides'
 * examples end up in the project's model. A model over the server's size limit (413, or over the
 * default limit before it is sent) stays in this browser, and the person is told.
 *
 * Everything outside (the API, the learner, the notices) is a port, so tests run it against a real
 * server in Node.
 */
import { DEFAULT_LEARNED_MODEL_MAX_BYTES, type LearnedModel } from '../../contract/learned';
import type { LearnedClassesState } from '../../engine/learn/learnedClasses';
import { LearnedModelConflict, ProjectApiError, type ProjectApi } from '../projects/projectApi';

export interface ProjectLearnedPorts {
  readonly api: Pick<ProjectApi, 'getLearnedModel' | 'putLearnedModel'>;
  readonly projectId: string;
  /** The learner's model, or undefined while no class is taught (nothing worth writing). */
  model(): LearnedClassesState | undefined;
  /** The learner's taught lessons (SessionLearner.taughtLessons). */
  taughtLessons(): ReadonlyMap<string, string>;
  /** The lessons the document's objects teach now (lessons.ts documentLessons). */
  documentLessons(): ReadonlyMap<string, string>;
  /** SessionLearner.adoptModel. */
  adopt(model: LearnedClassesState | null, known: ReadonlyMap<string, string>): Promise<void>;
  /** Teaches the lessons not taught yet, now. */
  learnPending(): Promise<void>;
  notice(message: string): void;
}

/** The learner settles a few hundred milliseconds after the person stops; writing waits a little longer, so a burst of lessons is one write. */
export const LEARNED_SAVE_DELAY_MS = 1_500;
const RETRY_MS = 10_000;
const MAX_REBASES = 3;

/** The contract checked `kinds` against DESCRIPTOR_KINDS; its zod enum only loses the type. */
const asState = (stored: LearnedModel): LearnedClassesState => stored.model as LearnedClassesState;

const megabytes = (bytes: number) => (bytes / (1024 * 1024)).toFixed(1);

export class ProjectLearnedSync {
  /** The server's revision this browser's model was last read at or written as (0: the project has none). */
  private revision = 0;
  /** The lessons the model at `revision` holds, as far as this browser knows. */
  private base: ReadonlyMap<string, string> = new Map();
  /** The model's JSON as last read or written: the same state again is not written. */
  private inStep: string | undefined;
  private queue: Promise<void> = Promise.resolve();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;

  constructor(
    private readonly ports: ProjectLearnedPorts,
    private readonly saveDelayMs = LEARNED_SAVE_DELAY_MS,
    /** The server's default limit: one configured lower answers 413, which is told the same way. */
    private readonly sizeLimit = DEFAULT_LEARNED_MODEL_MAX_BYTES,
  ) {}

  /** The project was opened: its model replaces the learner's; without one, the session's own is written, if it belongs to this document. */
  open(): Promise<void> {
    return this.serially(async () => {
      const stored = await this.ports.api.getLearnedModel(this.ports.projectId);
      if (stored) {
        const lessons = this.ports.documentLessons();
        await this.ports.adopt(asState(stored), lessons);
        this.inStepWith(stored.revision, lessons);
        return;
      }
      const document = this.ports.documentLessons();
      const ofThisDocument = [...this.ports.taughtLessons().keys()].some((id) => document.has(id));
      // A project made from the session takes the session's model; a project opened in place of an unrelated session starts afresh.
      if (!ofThisDocument) await this.ports.adopt(null, new Map());
      await this.write();
    });
  }

  /** Another studio wrote the project's model (the live stream's `learned` event): read it, keeping what this browser taught since. */
  reload(): Promise<void> {
    return this.serially(async () => {
      if (await this.rebase()) await this.write();
    });
  }

  /** The learner's state changed: written a moment later. */
  changed(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      void this.serially(() => this.write()).catch(() => {
        // Offline or the server failing: the model stays in the browser; try again later.
        if (!this.stopped) this.timer = setTimeout(() => this.changed(), RETRY_MS);
      });
    }, this.saveDelayMs);
  }

  /** Writes now what waits (tests, and closing the project). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    return this.serially(() => this.write());
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  get serverRevision(): number {
    return this.revision;
  }

  private serially(work: () => Promise<void>): Promise<void> {
    const next = this.queue.catch(() => undefined).then(() => (this.stopped ? undefined : work()));
    this.queue = next;
    return next;
  }

  private inStepWith(revision: number, lessons: ReadonlyMap<string, string>): void {
    this.revision = revision;
    this.base = lessons;
    const model = this.ports.model();
    this.inStep = model && JSON.stringify(model);
  }

  /** Takes the server's newer model, if there is one; the lessons taught here since `base` are taught into it again. True when it did. */
  private async rebase(): Promise<boolean> {
    const stored = await this.ports.api.getLearnedModel(this.ports.projectId);
    if (!stored || stored.revision === this.revision) return false;
    const taughtHere = [...this.ports.taughtLessons()].some(([id, signature]) => this.base.get(id) !== signature);
    await this.ports.adopt(asState(stored), this.base);
    this.inStepWith(stored.revision, this.base);
    if (taughtHere) await this.ports.learnPending();
    return true;
  }

  /** The same state is not offered again; the next lesson tries again (and is told again). */
  private overLimit(json: string): void {
    this.inStep = json;
    this.ports.notice(`The learned model (${megabytes(json.length)} MB) is over the server's size limit: it is kept in this browser and in exports, not in the project.`);
  }

  private async write(): Promise<void> {
    for (let attempt = 0; attempt <= MAX_REBASES; attempt++) {
      const model = this.ports.model();
      if (!model) return;
      const json = JSON.stringify(model);
      if (json === this.inStep) return;
      const lessons = this.ports.taughtLessons();
      // The server resets the connection while so large a body is still being sent: the browser sees a network failure, never the 413.
      if (json.length > this.sizeLimit) return this.overLimit(json);
      try {
        const saved = await this.ports.api.putLearnedModel(this.ports.projectId, this.revision, model);
        this.revision = saved.revision;
        this.base = lessons;
        this.inStep = json;
        return;
      } catch (error) {
        if (error instanceof LearnedModelConflict) {
          await this.rebase();
          continue;
        }
        if (error instanceof ProjectApiError && error.status === 413) return this.overLimit(json);
        throw error;
      }
    }
    throw new Error(`the project's learned model kept changing on the server (${MAX_REBASES} tries)`);
  }
}
