/**
 * Auto-label jobs on a project (issue 38). A job is a row of `jobs` and one row of `job_images`
 * per image, `pending` until that image's proposals are written; each image is one task of the
 * job queue (queue.ts), run here by `runImage`:
 *
 *   1. the job must still be queued or running, the image still pending (else: nothing to do);
 *   2. the image is segmented through the metered runner, under the Idempotency-Key of the
 *      (job, image): a second run after a crash replays the stored answer instead of charging
 *      again, and an empty or failed answer is refunded by the runner as for any call;
 *   3. in ONE transaction: the image still pending (a twin run may have finished it), proposals
 *      added to the objects stored now (proposals.ts), the image marked done, the job's counts
 *      and its events written.
 *
 * Out of credits (402 at step 2) the job is paused; `resumePaused` (run by every worker process)
 * puts its pending images back on the queue once the payer's balance covers an image again.
 */
import { createHash } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { CreateJobRequest, Job, JobState, ProjectEvent } from '../../../contract/jobs';
import type { AnnotationObject, ProjectClass } from '../../../contract/projects';
import type { Db } from '../../db/connect';
import type { Database, JobsTable } from '../../db/schema';
import type { Clock } from '../clock';
import { DomainError } from '../errors';
import { newId } from '../ids';
import { PRICING_KEYS, type Prices } from '../pricing';
import type { ProjectEvents } from '../projects/projectEvents';
import type { Projects } from '../projects/projects';
import type { LearnedModels } from '../projects/learnedModels';
import type { AutoLabelWork, Segmentation } from '../segmentation';
import { addProposals, learnedClassNames, proposalsFrom } from './proposals';
import { RetryLater, type ImageTask, type JobQueue } from './queue';

const iso = (ms: number) => new Date(ms).toISOString();
const ACTIVE: JobState[] = ['queued', 'running'];
const UNFINISHED: JobState[] = ['queued', 'running', 'paused'];

/**
 * Answers of the runner that say "not now" rather than "this image fails": the same (job, image)
 * still running in a process presumed dead until its lease runs out, its refund pending, the
 * engine or the payer's share of it full, or the refund budget spent for the window. And this
 * run's own call taken over by recovery (`attempt-abandoned`: a slow worker presumed dead, its
 * charge refunded before it settled): nothing was written, and the refunded key is free, so the
 * image is run again and charged once, instead of being counted as failed and left unlabelled.
 */
const RETRY_LATER = new Set(['request-in-progress', 'refund-pending', 'service-busy', 'account-queue-full', 'rate-limited', 'refund-budget-exhausted', 'internal-error', 'attempt-abandoned']);

/** Inserted in slices: a job over a large project is one transaction, but not one statement. */
const INSERT_SLICE = 500;

export class Jobs {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly projects: Projects,
    private readonly segmentation: Segmentation,
    private readonly events: ProjectEvents,
    private readonly queue: JobQueue,
    private readonly prices: Prices,
    private readonly learnedModels: LearnedModels,
  ) {}

  private async view(row: JobsTable): Promise<Job> {
    const starter = await this.db.kysely.selectFrom('accounts').select('email').where('id', '=', row.account_id).executeTakeFirst();
    return {
      id: row.id,
      kind: row.kind,
      state: row.state,
      ...(row.prompts ? { prompts: JSON.parse(row.prompts) as string[] } : {}),
      total: Number(row.total),
      done: Number(row.done),
      failed: Number(row.failed),
      createdBy: starter?.email ?? '',
      createdAt: iso(Number(row.created_at)),
      updatedAt: iso(Number(row.updated_at)),
    };
  }

  private static event(row: Pick<JobsTable, 'id' | 'state' | 'done' | 'failed' | 'total'>): ProjectEvent {
    return { type: 'job', jobId: row.id, state: row.state, done: Number(row.done), failed: Number(row.failed), total: Number(row.total) };
  }

  /**
   * Starts a job (owner, annotator). The same Idempotency-Key and body again answer the job made
   * the first time (`created: false`); the key with another body is 409.
   */
  async create(accountId: string, projectId: string, request: CreateJobRequest, idempotencyKey?: string): Promise<{ job: Job; created: boolean }> {
    await this.projects.authorize(accountId, projectId, 'start-job');
    const fingerprint = createHash('sha256').update(JSON.stringify({ projectId, kind: request.kind, prompts: request.prompts ?? null, imageIds: request.imageIds ?? null })).digest('hex');
    if (idempotencyKey) {
      const earlier = await this.byKey(accountId, idempotencyKey, fingerprint);
      if (earlier) return { job: earlier, created: false };
    }
    if (request.kind === 'learned') {
      const classes = await this.learnedModels.classesOf(projectId);
      if (!classes?.length) {
        throw new DomainError(
          'learned-model-missing',
          classes ? "the project's learned model knows no class yet: teach it one, save it (PUT …/learned), then start the job" : 'this project has no learned model: teach the studio a class, save the model (PUT …/learned), then start the job',
        );
      }
    }
    const imageIds = await this.imagesToLabel(projectId, request.imageIds);
    const now = this.clock.now();
    const row: JobsTable = {
      id: newId('job'),
      project_id: projectId,
      account_id: accountId,
      kind: request.kind,
      prompts: request.prompts ? JSON.stringify(request.prompts) : null,
      state: imageIds.length === 0 ? 'done' : 'queued',
      total: imageIds.length,
      done: 0,
      failed: 0,
      idempotency_key: idempotencyKey ?? null,
      fingerprint,
      created_at: now,
      updated_at: now,
    };
    try {
      await this.db.transaction(async (trx) => {
        await trx.insertInto('jobs').values(row).execute();
        for (let i = 0; i < imageIds.length; i += INSERT_SLICE) {
          await trx
            .insertInto('job_images')
            .values(imageIds.slice(i, i + INSERT_SLICE).map((imageId) => ({ job_id: row.id, image_id: imageId, state: 'pending' as const, proposed: 0, finished_at: null })))
            .execute();
        }
        await this.queue.enqueue(trx, imageIds.map((imageId) => ({ jobId: row.id, imageId })));
        await this.events.record(trx, projectId, [Jobs.event(row)]);
      });
    } catch (error) {
      // The same key raced in from another request: its job is the answer.
      const earlier = idempotencyKey ? await this.byKey(accountId, idempotencyKey, fingerprint).catch(() => undefined) : undefined;
      if (earlier) return { job: earlier, created: false };
      throw error;
    }
    this.events.wake(projectId);
    return { job: await this.view(row), created: true };
  }

  private async byKey(accountId: string, key: string, fingerprint: string): Promise<Job | undefined> {
    const earlier = await this.db.kysely.selectFrom('jobs').selectAll().where('account_id', '=', accountId).where('idempotency_key', '=', key).executeTakeFirst();
    if (!earlier) return undefined;
    if (earlier.fingerprint !== fingerprint) throw new DomainError('idempotency-key-reused', 'this Idempotency-Key started another job');
    return this.view(earlier);
  }

  private async imagesToLabel(projectId: string, requested?: readonly string[]): Promise<string[]> {
    const rows = await this.db.kysely.selectFrom('project_images').select('id').where('project_id', '=', projectId).orderBy('created_at').orderBy('id').execute();
    if (!requested) return rows.map((r) => r.id);
    const known = new Set(rows.map((r) => r.id));
    const errors = requested.flatMap((id, i) => (known.has(id) ? [] : [{ path: `imageIds.${i}`, message: `${id} is not an image of this project` }]));
    if (errors.length) throw new DomainError('validation-failed', errors.slice(0, 5).map((e) => e.message).join('; '), { errors });
    return [...new Set(requested)];
  }

  async list(accountId: string, projectId: string): Promise<Job[]> {
    await this.projects.authorize(accountId, projectId, 'read');
    const rows = await this.db.kysely.selectFrom('jobs').selectAll().where('project_id', '=', projectId).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
    return Promise.all(rows.map((row) => this.view(row)));
  }

  async get(accountId: string, projectId: string, jobId: string): Promise<Job> {
    await this.projects.authorize(accountId, projectId, 'read');
    return this.view(await this.row(projectId, jobId));
  }

  private async row(projectId: string, jobId: string): Promise<JobsTable> {
    const row = await this.db.kysely.selectFrom('jobs').selectAll().where('id', '=', jobId).where('project_id', '=', projectId).executeTakeFirst();
    if (!row) throw new DomainError('not-found', 'no such job in this project');
    return row;
  }

  /** The owner or whoever started it: images not yet run are never run, so never charged. */
  async cancel(accountId: string, projectId: string, jobId: string): Promise<Job> {
    const { role } = await this.projects.authorize(accountId, projectId, 'read');
    const job = await this.row(projectId, jobId);
    if (role !== 'owner' && job.account_id !== accountId) throw new DomainError('role-forbidden', 'only the owner or who started a job can cancel it');
    const now = this.clock.now();
    const cancelled = await this.db.transaction(async (trx) => {
      const updated = await trx.updateTable('jobs').set({ state: 'cancelled', updated_at: now }).where('id', '=', jobId).where('state', 'in', UNFINISHED).executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) return false;
      await trx.updateTable('job_images').set({ state: 'cancelled', finished_at: now }).where('job_id', '=', jobId).where('state', '=', 'pending').execute();
      const row = await trx.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow();
      await this.events.record(trx, projectId, [Jobs.event(row)]);
      return true;
    });
    if (cancelled) this.events.wake(projectId);
    return this.view(await this.row(projectId, jobId));
  }

  /** Tasks of unfinished jobs whose images are still pending: what an in-process queue takes up again at start. */
  async pendingTasks(): Promise<ImageTask[]> {
    const rows = await this.db.kysely
      .selectFrom('job_images')
      .innerJoin('jobs', 'jobs.id', 'job_images.job_id')
      .select(['job_images.job_id', 'job_images.image_id'])
      .where('jobs.state', 'in', ACTIVE)
      .where('job_images.state', '=', 'pending')
      .orderBy('jobs.created_at')
      .execute();
    return rows.map((r) => ({ jobId: r.job_id, imageId: r.image_id }));
  }

  /** One image of a job: see the steps at the top of this file. Throws RetryLater to be run again later. */
  async runImage(task: ImageTask): Promise<void> {
    const job = await this.db.kysely.selectFrom('jobs').selectAll().where('id', '=', task.jobId).executeTakeFirst();
    if (!job || !ACTIVE.includes(job.state)) return;
    const image = await this.db.kysely.selectFrom('job_images').select('state').where('job_id', '=', task.jobId).where('image_id', '=', task.imageId).executeTakeFirst();
    if (image?.state !== 'pending') return;
    if (job.state === 'queued') await this.markRunning(job);

    const stored = await this.projects.imageForJob(job.project_id, task.imageId);
    // Deleted since the job started: nothing to label, nothing charged.
    if (!stored) return this.finish(job, task.imageId, 'failed', []);
    const work = await this.workOf(job, stored.classes);
    // The project's model is gone: nothing to classify with, nothing charged.
    if (!work) return this.finish(job, task.imageId, 'failed', []);
    let outcome;
    try {
      outcome = await this.segmentation.autoLabel(
        work,
        {
          accountId: job.account_id,
          requestId: newId('req'),
          method: 'POST',
          path: `/api/v1/projects/${job.project_id}/jobs/${job.id}`,
          // One key per (job, image): a second run of the image is a replay of the first.
          idempotencyKey: `job.${job.id}.${task.imageId}`,
          forceRefresh: false,
        },
        stored.bytes,
      );
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      if (error.slug === 'insufficient-credits') return this.pause(job);
      if (RETRY_LATER.has(error.slug)) throw new RetryLater(`${error.slug}: ${error.detail ?? ''}`);
      // The image itself failed (not an image, the engine failed): the runner refunded it.
      return this.finish(job, task.imageId, 'failed', []);
    }
    const proposals = outcome.refunded
      ? []
      : proposalsFrom(job.kind, JSON.parse(outcome.json), { jobId: `${job.id}.${task.imageId}`, imageId: task.imageId, width: stored.row.width, height: stored.row.height }, stored.classes);
    await this.finish(job, task.imageId, 'done', proposals);
  }

  /** What the engine is asked for on each image of the job; a learned job reads the project's newest model. */
  private async workOf(job: JobsTable, classes: readonly ProjectClass[]): Promise<AutoLabelWork | undefined> {
    if (job.kind === 'everything') return { kind: 'everything' };
    if (job.kind === 'text') return { kind: 'text', prompts: job.prompts ? (JSON.parse(job.prompts) as string[]) : [] };
    const model = await this.learnedModels.forJob(job.project_id);
    if (!model) return undefined;
    return { kind: 'learned', model: model.state, classNames: learnedClassNames(model.state.classes.slice(1), classes) };
  }

  private async markRunning(job: JobsTable): Promise<void> {
    const changed = await this.db.transaction(async (trx) => {
      const updated = await trx.updateTable('jobs').set({ state: 'running', updated_at: this.clock.now() }).where('id', '=', job.id).where('state', '=', 'queued').executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) return false;
      const row = await trx.selectFrom('jobs').selectAll().where('id', '=', job.id).executeTakeFirstOrThrow();
      await this.events.record(trx, job.project_id, [Jobs.event(row)]);
      return true;
    }, 'relaxed');
    if (changed) this.events.wake(job.project_id);
  }

  private async pause(job: JobsTable): Promise<void> {
    const paused = await this.db.transaction(async (trx) => {
      const updated = await trx.updateTable('jobs').set({ state: 'paused', updated_at: this.clock.now() }).where('id', '=', job.id).where('state', 'in', ACTIVE).executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) return false;
      const row = await trx.selectFrom('jobs').selectAll().where('id', '=', job.id).executeTakeFirstOrThrow();
      await this.events.record(trx, job.project_id, [Jobs.event(row)]);
      return true;
    });
    if (paused) this.events.wake(job.project_id);
  }

  /**
   * The image's outcome, exactly once: proposals merged into the objects stored now, the image
   * marked, the job's counts and state, and the events, in one transaction. A result that was
   * paid for is written even if the job was cancelled while it ran.
   */
  private async finish(job: JobsTable, imageId: string, outcome: 'done' | 'failed', proposals: AnnotationObject[]): Promise<void> {
    const now = this.clock.now();
    const wrote = await this.db.transaction(async (trx) => {
      const image = await lockedJobImage(trx, this.db.dialect, job.id, imageId);
      if (!image || (image.state !== 'pending' && image.state !== 'cancelled')) return false;
      if (image.state === 'cancelled' && outcome === 'failed') return false;
      const events: ProjectEvent[] = [];
      let proposed = 0;
      if (proposals.length) {
        const row = await lockedImage(trx, this.db.dialect, imageId);
        if (row) {
          const starter = await trx.selectFrom('accounts').select('email').where('id', '=', job.account_id).executeTakeFirstOrThrow();
          const stamped = proposals.map((p) => ({ ...p, changedBy: starter.email, changedAt: iso(now) }));
          const { objects, added } = addProposals(JSON.parse(row.objects) as AnnotationObject[], stamped, row);
          proposed = added.length;
          if (added.length) {
            await trx.updateTable('project_images').set({ objects: JSON.stringify(objects), revision: row.revision + 1, updated_by: job.account_id, updated_at: now }).where('id', '=', imageId).execute();
            events.push({ type: 'annotations', imageId, revision: row.revision + 1, changedBy: starter.email });
          }
        }
      }
      await trx.updateTable('job_images').set({ state: outcome, proposed, finished_at: now }).where('job_id', '=', job.id).where('image_id', '=', imageId).execute();
      await trx
        .updateTable('jobs')
        .set(outcome === 'done' ? { done: sql`done + 1`, updated_at: now } : { failed: sql`failed + 1`, updated_at: now })
        .where('id', '=', job.id)
        .execute();
      // The last image settles the job: done, or failed when not one image succeeded.
      await trx
        .updateTable('jobs')
        .set({ state: sql`case when done = 0 then 'failed' else 'done' end` })
        .where('id', '=', job.id)
        .where('state', 'in', [...ACTIVE, 'paused'])
        .where(sql<boolean>`done + failed >= total`)
        .execute();
      const after = await trx.selectFrom('jobs').selectAll().where('id', '=', job.id).executeTakeFirstOrThrow();
      events.push(Jobs.event(after));
      await this.events.record(trx, job.project_id, events);
      return true;
    });
    if (wrote) this.events.wake(job.project_id);
  }

  /**
   * Paused jobs whose payer can pay for an image again go back on the queue (their pending images).
   * Any number of processes may sweep at once: only the one that flips the state re-queues.
   */
  async resumePaused(): Promise<number> {
    const price = this.prices[PRICING_KEYS.autoLabel];
    const paused = await this.db.kysely
      .selectFrom('jobs')
      .innerJoin('accounts', 'accounts.id', 'jobs.account_id')
      .select(['jobs.id', 'jobs.project_id'])
      .where('jobs.state', '=', 'paused')
      .where('accounts.balance', '>=', price)
      .execute();
    let resumed = 0;
    for (const job of paused) {
      const flipped = await this.db.transaction(async (trx) => {
        const updated = await trx.updateTable('jobs').set({ state: 'running', updated_at: this.clock.now() }).where('id', '=', job.id).where('state', '=', 'paused').executeTakeFirst();
        if (Number(updated.numUpdatedRows) === 0) return false;
        const pending = await trx.selectFrom('job_images').select('image_id').where('job_id', '=', job.id).where('state', '=', 'pending').execute();
        await this.queue.enqueue(trx, pending.map((p) => ({ jobId: job.id, imageId: p.image_id })));
        const row = await trx.selectFrom('jobs').selectAll().where('id', '=', job.id).executeTakeFirstOrThrow();
        await this.events.record(trx, job.project_id, [Jobs.event(row)]);
        return true;
      });
      if (flipped) {
        resumed++;
        this.events.wake(job.project_id);
      }
    }
    return resumed;
  }
}

async function lockedJobImage(trx: Transaction<Database>, dialect: Db['dialect'], jobId: string, imageId: string) {
  const query = trx.selectFrom('job_images').select('state').where('job_id', '=', jobId).where('image_id', '=', imageId);
  // SQLite: the transaction holds the database's write lock already (BEGIN IMMEDIATE).
  return (dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
}

async function lockedImage(trx: Transaction<Database>, dialect: Db['dialect'], imageId: string) {
  const query = trx.selectFrom('project_images').select(['objects', 'revision', 'width', 'height']).where('id', '=', imageId);
  return (dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
}
