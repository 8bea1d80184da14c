/**
 * Issue 38 over real HTTP: auto-label jobs on a project, two servers on one database (SQLite
 * file, or a PostgreSQL schema with pg-boss when TEST_DATABASE_URL is set) and the real engine.
 * A job's proposals land beside what people wrote, never twice and never over an accepted object;
 * each image is charged once (refunded when empty), a job pauses without credits and resumes when
 * they arrive, cancel stops the charges, and a second run of an image (a worker that died after
 * its charge) replays instead of paying or writing again. The ledger is checked after each test.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ImageAnnotations, Project, ProjectImage, AnnotationObject } from '../contract/projects';
import type { Job, ProjectEvent } from '../contract/jobs';
import { LIMITS } from '../contract/limits';
import { CREDIT_PACKAGES } from '../contract/account';
import {
  closeSharedEngine,
  creditsOf,
  DATABASES,
  expectJson,
  expectProblem,
  sampleBase64,
  sharedEngine,
  signupUser,
  startTestServer,
  type TestServer,
  type TestUser,
  userClient,
} from '../../test/support/server/harness';

afterAll(async () => closeSharedEngine());

const json = expectJson;
const client = userClient;

/** How long a test waits for a job, its events or its attempts: a bulk image on a loaded machine takes over a minute. */
const JOB_WAIT_MS = 120_000;

/** Reads a project's event stream until `until` says enough (or the time runs out: as long as a job is waited for). */
async function readEvents(server: TestServer, user: TestUser, projectId: string, until: (events: Array<{ id: number; event: ProjectEvent }>) => boolean, lastEventId?: number) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), JOB_WAIT_MS);
  const response = await server.fetch(`/api/v1/projects/${projectId}/events`, {
    headers: { ...user.bearer, ...(lastEventId !== undefined ? { 'last-event-id': String(lastEventId) } : {}) },
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const events: Array<{ id: number; event: ProjectEvent }> = [];
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    while (!until(events)) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const id = /^id: (\d+)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (id && data) events.push({ id: Number(id), event: JSON.parse(data) as ProjectEvent });
      }
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return events;
}

async function waitForJob(server: TestServer, user: TestUser, projectId: string, jobId: string, states: Job['state'][], also: (job: Job) => boolean = () => true): Promise<Job> {
  const deadline = Date.now() + JOB_WAIT_MS;
  for (;;) {
    const job = await json<Job>(await client(server, user).get(`/api/v1/projects/${projectId}/jobs/${jobId}`), 200);
    if (states.includes(job.state) && also(job)) return job;
    if (Date.now() > deadline) throw new Error(`job ${jobId} is ${job.state} (${job.done}/${job.total}), not ${states.join(' or ')}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The states of the attempts whose key is like `keyPattern`, once none is running or owed a refund. */
async function settledAttempts(server: TestServer, keyPattern: string): Promise<string[]> {
  const deadline = Date.now() + JOB_WAIT_MS;
  for (;;) {
    const states = (await server.services.db.kysely.selectFrom('attempts').select('state').where('idempotency_key', 'like', keyPattern).execute()).map((row) => row.state);
    if (!states.some((state) => state === 'charged' || state === 'refund_pending')) return states;
    if (Date.now() > deadline) throw new Error(`attempts ${keyPattern} still unsettled: ${states.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const square = (id: string, review: AnnotationObject['review']): AnnotationObject => ({
  id,
  classId: null,
  polygons: [{ outer: [[1, 1], [20, 1], [20, 20], [1, 20]], holes: [] }],
  source: 'local',
  confidence: 1,
  visible: true,
  review,
});

describe.each(DATABASES)('auto-label jobs (%s, two servers on one database)', (dbKind) => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    const engine = await sharedEngine();
    const config = { jobs: { concurrency: 1, taskTimeoutSeconds: 120, maintenanceSeconds: 15, resumeSeconds: 1 } };
    a = await startTestServer({ db: dbKind, backend: engine, config });
    b = await startTestServer({ db: dbKind, backend: engine, config, database: a.database });
  }, 120_000);
  afterEach(async () => a.checkLedger());
  afterAll(async () => {
    await b?.cleanup();
    await a?.cleanup();
  });

  async function project(owner: TestUser, images: string[] = ['chelsea.png']) {
    const api = client(a, owner);
    const created = await json<Project>(await api.post('/api/v1/projects', { name: 'Jobs', classes: [{ id: 1, name: 'cat', color: '#ff5c5c' }] }), 201);
    const added: ProjectImage[] = [];
    for (const name of images) added.push(await json<ProjectImage>(await api.post(`/api/v1/projects/${created.id}/images`, { name, image: sampleBase64(name) }), 201));
    return { project: created, images: added, base: `/api/v1/projects/${created.id}`, api };
  }

  it('labels every image in the background: proposals beside the human objects, one credit per image, live events in order', async () => {
    const owner = await signupUser(a);
    const { project: p, images, base, api } = await project(owner);
    const [cat] = images;
    // A person's objects, written before the job: kept as they are.
    await json(await api.put(`${base}/images/${cat.id}/annotations`, { revision: 0, objects: [square('mine', 'accepted')] }), 200);

    const watching = readEvents(b, owner, p.id, (events) => events.some((e) => e.event.type === 'job' && e.event.state === 'done'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const job = await json<Job>(await api.post(`${base}/jobs`, { kind: 'everything' }), 202);
    expect(job).toMatchObject({ kind: 'everything', state: 'queued', total: 1, done: 0, failed: 0, createdBy: owner.email });
    const finished = await waitForJob(b, owner, p.id, job.id, ['done', 'failed']);
    expect(finished).toMatchObject({ state: 'done', done: 1, failed: 0 });

    const stored = await json<ImageAnnotations>(await client(b, owner).get(`${base}/images/${cat.id}/annotations`), 200);
    expect(stored.revision).toBe(2);
    expect(stored.objects[0]).toMatchObject({ id: 'mine', review: 'accepted', changedBy: owner.email });
    const proposals = stored.objects.slice(1);
    expect(proposals.length).toBeGreaterThan(0);
    expect(proposals.every((o) => o.review === 'unreviewed' && o.proposedBy === 'segment-everything' && o.source === 'remote')).toBe(true);
    expect(proposals.some((o) => o.label === 'cat')).toBe(true);
    expect(await creditsOf(a, owner)).toBe(LIMITS.signupCredits - 1);

    // The stream (on the other server) saw the job start, the image written, the job done: in that order, ids increasing.
    const events = await watching;
    expect(events.map((e) => (e.event.type === 'job' ? `job:${e.event.state}:${e.event.done}` : e.event.type === 'annotations' ? `annotations:${e.event.revision}` : e.event.type))).toEqual([
      'job:queued:0',
      'job:running:0',
      'annotations:2',
      'job:done:1',
    ]);
    expect(events.map((e) => e.id)).toEqual([...events.map((e) => e.id)].sort((x, y) => x - y));
    // Resuming after the first event sends the rest, nothing twice.
    const resumed = await readEvents(a, owner, p.id, (got) => got.length >= 3, events[0].id);
    expect(resumed.map((e) => e.id)).toEqual(events.slice(1).map((e) => e.id));

    // Everything accepted, a second job proposes nothing again: no duplicate of an accepted object.
    const accepted = stored.objects.map((o) => ({ ...o, review: 'accepted' as const }));
    await json(await api.put(`${base}/images/${cat.id}/annotations`, { revision: 2, objects: accepted }), 200);
    const again = await json<Job>(await api.post(`${base}/jobs`, { kind: 'everything' }), 202);
    await waitForJob(a, owner, p.id, again.id, ['done']);
    const after = await json<ImageAnnotations>(await api.get(`${base}/images/${cat.id}/annotations`), 200);
    expect(after.objects.map((o) => o.id)).toEqual(accepted.map((o) => o.id));
    expect(after.revision).toBe(3);
  }, 180_000);

  it("a photo another member adds or removes is an event on the project's stream, on the other server", async () => {
    const owner = await signupUser(a);
    const annotator = await signupUser(a);
    const { project: p, base, api } = await project(owner);
    await json(await api.post(`${base}/members`, { email: annotator.email, role: 'annotator' }), 201);
    await json(await client(a, annotator).post(`${base}/join`, {}), 200);

    const watching = readEvents(b, owner, p.id, (events) => events.some((e) => e.event.type === 'image-removed'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const added = await json<ProjectImage>(await client(a, annotator).post(`${base}/images`, { name: 'coffee.png', image: sampleBase64('coffee.png') }), 201);
    // The same file again adds nothing, and says nothing.
    await json<ProjectImage>(await client(a, annotator).post(`${base}/images`, { name: 'coffee again.png', image: sampleBase64('coffee.png') }), 200);
    expect((await api.del(`${base}/images/${added.id}`)).status).toBe(204);

    expect((await watching).map((e) => e.event)).toEqual([
      { type: 'image-added', imageId: added.id, changedBy: annotator.email },
      { type: 'image-removed', imageId: added.id, changedBy: owner.email },
    ]);
  }, 120_000);

  it('an image run again after its charge (a worker killed before writing) replays: no second charge, no second proposal', async () => {
    const owner = await signupUser(a);
    const { project: p, images, base, api } = await project(owner);
    const job = await json<Job>(await api.post(`${base}/jobs`, { kind: 'everything' }), 202);
    await waitForJob(a, owner, p.id, job.id, ['done']);
    const first = await json<ImageAnnotations>(await api.get(`${base}/images/${images[0].id}/annotations`), 200);
    const credits = await creditsOf(a, owner);

    // As if the worker died between the charge and the write: the image pending again, its task run
    // again, while the job still has other work (a total of 2 keeps it running after this image).
    await a.services.db.kysely.updateTable('job_images').set({ state: 'pending' }).where('job_id', '=', job.id).execute();
    await a.services.db.kysely.updateTable('jobs').set({ state: 'running', done: 0, total: 2 }).where('id', '=', job.id).execute();
    // Twice, by both servers: the second finds the image written and does nothing.
    await a.services.jobs.runImage({ jobId: job.id, imageId: images[0].id });
    await b.services.jobs.runImage({ jobId: job.id, imageId: images[0].id });
    const second = await json<ImageAnnotations>(await api.get(`${base}/images/${images[0].id}/annotations`), 200);
    expect(second.objects.map((o) => o.id)).toEqual(first.objects.map((o) => o.id));
    expect(await creditsOf(a, owner)).toBe(credits);
    expect(await json<Job>(await api.get(`${base}/jobs/${job.id}`), 200)).toMatchObject({ state: 'running', done: 1 });
    await a.services.db.kysely.updateTable('jobs').set({ state: 'done', total: 1 }).where('id', '=', job.id).execute();
  }, 180_000);

  it('a live worker whose call recovery took over (presumed dead, refunded) runs the image again: labelled and charged once, not failed', async () => {
    const owner = await signupUser(a);
    const { project: p, images, base, api } = await project(owner);
    const job = await json<Job>(await api.post(`${base}/jobs`, { kind: 'everything' }), 202);
    const key = `job.${job.id}.${images[0].id}`;
    const attempts = () => a.services.db.kysely.selectFrom('attempts').select(['id', 'state']).where('idempotency_key', '=', key).execute();

    // While the engine still works on the image, its lease is made to look expired, as a worker
    // starved of CPU looks, and recovery refunds the call under it (the test servers run no
    // background sweeps: this one is the only).
    const deadline = Date.now() + 60_000;
    let charged: { id: string } | undefined;
    while (!charged && Date.now() < deadline) {
      charged = (await attempts()).find((attempt) => attempt.state === 'charged');
      if (!charged) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(charged, 'the image was never seen charged while it ran').toBeDefined();
    // The claim commits before the flush that makes it durable, and that flush renews the lease: an
    // expiry written in between is overwritten, so the lease is made to look expired until a sweep
    // takes the attempt over (while it is still charged: the engine is still at work on it).
    let swept = { orphans: 0, refunded: 0 };
    while (swept.orphans === 0 && Date.now() < deadline) {
      const expired = await a.services.db.kysely.updateTable('attempts').set({ lease_until: 0 }).where('id', '=', charged!.id).where('state', '=', 'charged').executeTakeFirst();
      if (Number(expired.numUpdatedRows) === 0) break;
      swept = await a.services.recovery.sweepOnce();
    }
    expect(swept).toMatchObject({ orphans: 1, refunded: 1 });

    const finished = await waitForJob(a, owner, p.id, job.id, ['done', 'failed']);
    expect(finished).toMatchObject({ state: 'done', done: 1, failed: 0 });
    const stored = await json<ImageAnnotations>(await api.get(`${base}/images/${images[0].id}/annotations`), 200);
    expect(stored.objects.some((o) => o.proposedBy === 'segment-everything')).toBe(true);
    // The taken-over call stays refunded, and the run after it is the one charge kept.
    expect((await attempts()).map((attempt) => attempt.state).sort()).toEqual(['completed', 'refunded']);
    expect(await creditsOf(a, owner)).toBe(LIMITS.signupCredits - 1);
  }, 180_000);

  it('pauses when the credits run out and resumes once credits arrive; cancel stops what has not run', async () => {
    const owner = await signupUser(a);
    const { project: p, base, api } = await project(owner, ['chelsea.png', 'coffee.png']);
    // Spend all but one credit: the first image runs, the second finds none.
    await a.services.db.kysely.updateTable('accounts').set({ balance: 1 }).where('email', '=', owner.email).execute();
    await a.services.db.kysely
      .insertInto('ledger_entries')
      .values({ id: `le_test_${p.id}`, account_id: (await a.services.db.kysely.selectFrom('accounts').select('id').where('email', '=', owner.email).executeTakeFirstOrThrow()).id, amount: -(LIMITS.signupCredits - 1), kind: 'charge', reference: `test-${p.id}`, created_at: Date.now() })
      .execute();
    const job = await json<Job>(await api.post(`${base}/jobs`, { kind: 'everything' }), 202);
    const paused = await waitForJob(b, owner, p.id, job.id, ['paused'], (j) => j.done === 1);
    expect(paused).toMatchObject({ done: 1, total: 2 });
    expect(await creditsOf(a, owner)).toBe(0);
    // Still paused a moment later: nothing runs on credit.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await json<Job>(await api.get(`${base}/jobs/${job.id}`), 200)).state).toBe('paused');

    const bought = await a.fetch('/api/v1/credit-purchases', { method: 'POST', headers: owner.bearer, json: { packageId: 'lite' } });
    expect(bought.status).toBeLessThan(300);
    const done = await waitForJob(a, owner, p.id, job.id, ['done']);
    expect(done).toMatchObject({ done: 2, failed: 0 });
    // The purchase, less the one image that waited for it.
    expect(await creditsOf(a, owner)).toBe(CREDIT_PACKAGES.find((c) => c.id === 'lite')!.credits - 1);

    // Cancelled at once: whatever had not run is never charged; the job's counts say what ran.
    const before = await creditsOf(a, owner);
    const other = await json<Job>(await api.post(`${base}/jobs`, { kind: 'everything' }), 202);
    const cancelled = await json<Job>(await api.del(`${base}/jobs/${other.id}`), 200);
    expect(cancelled.state).toBe('cancelled');
    await new Promise((resolve) => setTimeout(resolve, 3000));
    // An image already running at the cancel goes on: its attempt stays `charged` until its answer is in.
    // Every credit gone has an attempt that holds it (charge and attempt are one transaction), even then;
    // what the balance kept is compared once no attempt is running.
    // The balance first: a charge it shows was committed with its attempt, so the attempt is there when read after.
    const gone = before - (await creditsOf(a, owner));
    const recorded = await a.services.db.kysely.selectFrom('attempts').select('state').where('idempotency_key', 'like', `job.${other.id}.%`).execute();
    expect(gone).toBeLessThanOrEqual(recorded.length);
    const attempts = await settledAttempts(a, `job.${other.id}.%`);
    const settled = await json<Job>(await api.get(`${base}/jobs/${other.id}`), 200);
    expect(settled.state).toBe('cancelled');
    expect(settled.done + settled.failed).toBeLessThan(2);
    expect(before - (await creditsOf(a, owner))).toBe(attempts.filter((state) => state === 'completed').length);
  }, 240_000);

  it('honours Idempotency-Key on POST, refuses learned without a learned model, and gates jobs by role; invitations hide a project until joined', async () => {
    const owner = await signupUser(a);
    const annotator = await signupUser(a);
    const reviewer = await signupUser(a);
    const outsider = await signupUser(a);
    const { project: p, images, base, api } = await project(owner);
    const key = { 'idempotency-key': `k-${p.id}` };
    const first = await json<Job>(await api.post(`${base}/jobs`, { kind: 'text', prompts: ['cat'] }, key), 202);
    const replay = await api.post(`${base}/jobs`, { kind: 'text', prompts: ['cat'] }, key);
    expect(replay.headers.get('x-idempotent-replayed')).toBe('true');
    expect((await json<Job>(replay, 202)).id).toBe(first.id);
    await expectProblem(await api.post(`${base}/jobs`, { kind: 'text', prompts: ['dog'] }, key), 409, 'idempotency-key-reused');
    // Nothing to propose with: refused before anything is queued (api.learned.test.ts runs one that has a model).
    await expectProblem(await api.post(`${base}/jobs`, { kind: 'learned' }), 409, 'learned-model-missing');
    await expectProblem(await api.post(`${base}/jobs`, { kind: 'text' }), 400, 'validation-failed');
    await expectProblem(await api.post(`${base}/jobs`, { kind: 'everything', imageIds: ['img_nope'] }), 400, 'validation-failed');
    const textJob = await waitForJob(a, owner, p.id, first.id, ['done']);
    expect(textJob.done).toBe(1);
    const labelled = await json<ImageAnnotations>(await api.get(`${base}/images/${images[0].id}/annotations`), 200);
    const proposal = labelled.objects.find((o) => o.proposedBy === 'text-prompt');
    expect(proposal).toMatchObject({ review: 'unreviewed', label: 'cat', classId: 1, source: 'text' });

    // Invited, not joined: 404 and not listed, but in their invitations.
    await json(await api.post(`${base}/members`, { email: annotator.email, role: 'annotator' }), 201);
    await json(await api.post(`${base}/members`, { email: reviewer.email, role: 'reviewer' }), 201);
    const ann = client(b, annotator);
    const rev = client(b, reviewer);
    await expectProblem(await ann.get(base), 404, 'not-found');
    await expectProblem(await ann.get(`${base}/events`), 404, 'not-found');
    expect((await json<{ projects: Project[] }>(await ann.get('/api/v1/projects'), 200)).projects).toEqual([]);
    expect((await json<{ invitations: Array<{ projectId: string; role: string; owner: string }> }>(await ann.get('/api/v1/invitations'), 200)).invitations).toEqual([
      { projectId: p.id, projectName: 'Jobs', owner: owner.email, role: 'annotator', invitedAt: expect.any(String) },
    ]);
    expect((await json<{ members: Array<{ email: string; invited?: boolean }> }>(await api.get(`${base}/members`), 200)).members.map((m) => m.invited ?? false)).toEqual([false, true, true]);
    await expectProblem(await client(b, outsider).post(`/api/v1/projects/${p.id}/join`, {}), 404, 'not-found');
    expect((await json<Project>(await ann.post(`/api/v1/projects/${p.id}/join`, {}), 200)).role).toBe('annotator');
    expect((await json<Project>(await rev.post(`/api/v1/projects/${p.id}/join`, {}), 200)).role).toBe('reviewer');
    expect((await json<{ invitations: unknown[] }>(await ann.get('/api/v1/invitations'), 200)).invitations).toEqual([]);

    // Jobs: owners and annotators start them; a reviewer may not, an outsider does not see the project.
    await expectProblem(await rev.post(`${base}/jobs`, { kind: 'everything' }), 403, 'role-forbidden');
    await expectProblem(await client(b, outsider).post(`${base}/jobs`, { kind: 'everything' }), 404, 'not-found');
    await expectProblem(await client(b, outsider).get(`${base}/jobs`), 404, 'not-found');
    expect((await json<{ jobs: Job[] }>(await rev.get(`${base}/jobs`), 200)).jobs.map((j) => j.id)).toEqual([first.id]);

    // Reviews: an annotator cannot accept a proposal; a reviewer can.
    const path = `${base}/images/${images[0].id}/annotations`;
    const judged = labelled.objects.map((o) => (o.id === proposal!.id ? { ...o, review: 'accepted' as const } : o));
    await expectProblem(await ann.put(path, { revision: labelled.revision, objects: judged }), 403, 'role-forbidden');
    await expectProblem(await ann.put(path, { revision: labelled.revision, objects: labelled.objects.map((o) => (o.id === proposal!.id ? { ...o, review: 'rejected' as const } : o)) }), 403, 'role-forbidden');
    // …but labels his own new objects as a person does.
    const own = await json<ImageAnnotations>(await ann.put(path, { revision: labelled.revision, objects: [...labelled.objects, square('own', 'accepted')] }), 200);
    const reviewed = await json<ImageAnnotations>(await rev.put(path, { revision: own.revision, objects: own.objects.map((o) => (o.id === proposal!.id ? { ...o, review: 'accepted' as const } : o)) }), 200);
    expect(reviewed.objects.find((o) => o.id === proposal!.id)).toMatchObject({ review: 'accepted', changedBy: reviewer.email });

    // The owner assigns the image to the annotator.
    const assigned = await json<ProjectImage>(await api.put(`${base}/images/${images[0].id}/assignee`, { assignee: annotator.email }), 200);
    expect(assigned.assignee).toBe(annotator.email);
    expect((await json<{ images: ProjectImage[] }>(await ann.get(`${base}/images`), 200)).images[0].assignee).toBe(annotator.email);
    await expectProblem(await ann.put(`${base}/images/${images[0].id}/assignee`, { assignee: null }), 403, 'role-forbidden');
    await expectProblem(await api.put(`${base}/images/${images[0].id}/assignee`, { assignee: outsider.email }), 400, 'validation-failed');
  }, 180_000);
});
