/**
 * A project's learned model on the server (issue 37 item 6): one per project, read by every member,
 * replaced whole by anyone who may annotate (owner, annotator, reviewer: a reviewer's accepts and
 * rejects are what teaches it most), and used by the project's `learned` jobs.
 *
 * Replaced like an image's annotations: the writer names the revision it learned on, and one
 * conditional UPDATE (or an INSERT that does nothing when a row exists) lets exactly one of two
 * writers on the same revision through, in any number of processes; the other gets 409 with the
 * current revision, to read, learn its decisions into and write again.
 */
import type { LearnedClassesState } from '../../../engine/learn/learnedClasses';
import type { Db } from '../../db/connect';
import type { Clock } from '../clock';
import { DomainError } from '../errors';
import type { Projects } from './projects';
import type { ProjectEvents } from './projectEvents';
import type { LearnedModelWriteInput, PreparedLearnedModel } from './learnedModelWrite';

export interface StoredLearnedModel {
  revision: number;
  /** As stored: sent as it is, never parsed again on a read. */
  modelJson: string;
  /** The classes the model knows (its class ids without the background). */
  classes: string[];
  updatedBy: string | null;
  updatedAt: string;
}

/** What a job classifies with: the weights, scaling and calibration, without the examples it learned from. */
export interface ModelForJob {
  revision: number;
  state: LearnedClassesState;
}

const noModel = () => new DomainError('not-found', 'this project has no learned model yet');

export class LearnedModels {
  /** The newest model a job of each project read, by project: read again only when its revision moved. */
  private readonly forJobs = new Map<string, ModelForJob>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly projects: Projects,
    private readonly events: ProjectEvents,
    /** The largest model stored (LEARNED_MODEL_MAX_BYTES): the PUT route's body limit. */
    readonly maxBytes: number,
    /** Parses and validates a PUT body (learnedModelWrite.ts): at once for a small one, in a worker thread for a large one. */
    private readonly prepare: (input: LearnedModelWriteInput) => Promise<PreparedLearnedModel>,
  ) {}

  async read(accountId: string, projectId: string): Promise<StoredLearnedModel> {
    await this.projects.authorize(accountId, projectId, 'read');
    const row = await this.db.kysely
      .selectFrom('learned_models')
      .leftJoin('accounts', 'accounts.id', 'learned_models.updated_by')
      .select(['learned_models.model', 'learned_models.classes', 'learned_models.revision', 'learned_models.updated_at', 'accounts.email'])
      .where('learned_models.project_id', '=', projectId)
      .executeTakeFirst();
    if (!row) throw noModel();
    return { revision: row.revision, modelJson: row.model, classes: JSON.parse(row.classes) as string[], updatedBy: row.email ?? null, updatedAt: new Date(Number(row.updated_at)).toISOString() };
  }

  /**
   * Replaces the model if it is still at the revision the request names (0: the project has none
   * yet); answers the new revision. The body is parsed and validated by `prepare` (a worker thread's
   * work for a large one).
   */
  async write(accountId: string, projectId: string, request: LearnedModelWriteInput): Promise<StoredLearnedModel> {
    await this.projects.authorize(accountId, projectId, 'annotate');
    const { revision, modelJson, classifierJson, classes } = await this.prepare(request);
    const now = this.clock.now();
    const row = { model: modelJson, classifier: classifierJson, classes: JSON.stringify(classes), revision: revision + 1, bytes: Buffer.byteLength(modelJson), updated_by: accountId, updated_at: now };
    const writer = await this.db.kysely.selectFrom('accounts').select('email').where('id', '=', accountId).executeTakeFirst();
    const written = await this.db.transaction(async (trx) => {
      const done =
        revision === 0
          ? await trx.insertInto('learned_models').values({ project_id: projectId, ...row }).onConflict((oc) => oc.column('project_id').doNothing()).returning('project_id').executeTakeFirst()
          : await trx.updateTable('learned_models').set(row).where('project_id', '=', projectId).where('revision', '=', revision).returning('project_id').executeTakeFirst();
      // Members' studios hear of it on the project's live stream, as of every other change.
      if (done) await this.events.record(trx, projectId, [{ type: 'learned', revision: revision + 1, changedBy: writer?.email ?? null }]);
      return done;
    });
    if (!written) {
      const current = await this.db.kysely.selectFrom('learned_models').select('revision').where('project_id', '=', projectId).executeTakeFirst();
      const currentRevision = current?.revision ?? 0;
      throw new DomainError('learned-model-conflict', `the learned model is at revision ${currentRevision}, not ${revision}`, {
        members: { currentRevision },
        ...(current ? { headers: { ETag: `"${currentRevision}"` } } : {}),
      });
    }
    this.events.wake(projectId);
    return { revision: revision + 1, modelJson, classes, updatedBy: writer?.email ?? null, updatedAt: new Date(now).toISOString() };
  }

  /** The classes the project's model knows, or undefined when it has no model. */
  async classesOf(projectId: string): Promise<string[] | undefined> {
    const row = await this.db.kysely.selectFrom('learned_models').select('classes').where('project_id', '=', projectId).executeTakeFirst();
    return row ? (JSON.parse(row.classes) as string[]) : undefined;
  }

  /**
   * The model a job of the project classifies with now (the job was authorized when it started), or
   * undefined when the project has none. Each image reads the newest: what people teach while a
   * long job runs improves the images it has not reached yet.
   */
  async forJob(projectId: string): Promise<ModelForJob | undefined> {
    const head = await this.db.kysely.selectFrom('learned_models').select('revision').where('project_id', '=', projectId).executeTakeFirst();
    if (!head) return undefined;
    const cached = this.forJobs.get(projectId);
    if (cached?.revision === head.revision) return cached;
    // The examples are what it learned from; classifying needs none of them, and they are most of its size.
    const row = await this.db.kysely.selectFrom('learned_models').select(['classifier', 'revision']).where('project_id', '=', projectId).executeTakeFirst();
    if (!row) return undefined;
    const found = { revision: row.revision, state: JSON.parse(row.classifier) as LearnedClassesState };
    this.forJobs.set(projectId, found);
    return found;
  }
}
