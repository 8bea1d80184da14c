/**
 * A project's learned model on the server and its `learned` jobs (issues 37 item 6, 38 item 1), over
 * real HTTP on two servers sharing one database (SQLite, and PostgreSQL when TEST_DATABASE_URL is
 * set): the model goes in and comes back as it was; two members writing on one revision cannot
 * overwrite each other; who may read and write it; and a learned job on real raccoon photos (a class
 * no detector knows), taught on other raccoon photos, proposes raccoons at one credit per image.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ImageAnnotations, Project, ProjectImage } from '../contract/projects';
import type { Job } from '../contract/jobs';
import type { LearnedModel } from '../contract/learned';
import { LearnedClasses, type LearnedClassesState } from '../engine/learn/learnedClasses';
import { APPEARANCE_LENGTH, type RegionDescriptor } from '../engine/learn/descriptors';
import { boxIoU } from '../engine/text/detector';
import { LEARNED_MODEL_FILE } from '../annotations/formats/learnedModelFile';
import { readDatasetFiles } from '../annotations/formats/readFiles';
import { readZip } from '../annotations/formats/zip';
import {
  closeSharedEngine,
  creditsOf,
  DATABASES,
  expectJson,
  expectProblem,
  NO_INFERENCE,
  sharedEngine,
  signupUser,
  startTestServer,
  type TestServer,
  type TestUser,
  userClient,
} from '../../test/support/server/harness';
import { HAS_RACCOONS, raccoonBoxes, raccoonBytes, raccoonModel } from '../../test/support/learnedRaccoons';

afterAll(async () => closeSharedEngine());

const json = expectJson;
const client = userClient;

/** A small model taught two classes on made-up appearance vectors: pure arithmetic, no engine. */
function smallModel(seed: number, classes: readonly string[] = ['1', '2']): LearnedClassesState {
  const model = new LearnedClasses({ kinds: ['appearance'] });
  const descriptor = (centre: number, i: number): RegionDescriptor => ({
    sam: [],
    detectors: [],
    backbone: [],
    appearance: Array.from({ length: APPEARANCE_LENGTH }, (_, j) => centre + Math.sin(seed + i * 7 + j) * 0.1),
  });
  const examples = classes.flatMap((classId, k) => Array.from({ length: 5 }, (_, i) => ({ descriptor: descriptor(k + 1, i), classId })));
  model.learnAll([...examples, ...Array.from({ length: 5 }, (_, i) => ({ descriptor: descriptor(-1, i), classId: null }))]);
  return model.toJSON();
}

describe.each(DATABASES)("a project's learned model (%s, two servers on one database)", (dbKind) => {
  let a: TestServer;
  let b: TestServer;
  const config = { learnedModelMaxBytes: 1024 * 1024 };
  beforeAll(async () => {
    a = await startTestServer({ db: dbKind, backend: NO_INFERENCE, config });
    b = await startTestServer({ db: dbKind, backend: NO_INFERENCE, config, database: a.database });
  }, 60_000);
  afterAll(async () => {
    await b?.cleanup();
    await a?.cleanup();
  });

  async function project(owner: TestUser) {
    const created = await json<Project>(await client(a, owner).post('/api/v1/projects', { name: 'Learned', classes: [{ id: 1, name: 'raccoon', color: '#ff5c5c' }, { id: 2, name: 'fox', color: '#5cff5c' }] }), 201);
    return { project: created, path: `/api/v1/projects/${created.id}/learned` };
  }

  it('stores the model and gives it back as it was, to every member on any server; a stale or missing revision writes nothing', async () => {
    const owner = await signupUser(a);
    const { project: p, path } = await project(owner);
    await expectProblem(await client(a, owner).get(path), 404, 'not-found');

    const first = smallModel(1);
    const written = await client(a, owner).put(path, { revision: 0, model: first });
    expect(written.headers.get('etag')).toBe('"1"');
    expect(await json<LearnedModel>(written, 200)).toMatchObject({ revision: 1, classes: ['1', '2'], updatedBy: owner.email });
    const read = await client(b, owner).get(path);
    expect(read.headers.get('etag')).toBe('"1"');
    const stored = await json<LearnedModel>(read, 200);
    expect(stored.model).toEqual(first);
    // What comes back is a model: the classifier restored from it answers as the one that was sent.
    const probe: RegionDescriptor = { sam: [], detectors: [], backbone: [], appearance: new Array<number>(APPEARANCE_LENGTH).fill(2) };
    expect(LearnedClasses.fromJSON(stored.model as LearnedClassesState).classify(probe)).toEqual(LearnedClasses.fromJSON(first).classify(probe));

    // On a stale revision (or with none named) nothing is written.
    await expectProblem(await client(b, owner).put(path, { revision: 0, model: smallModel(2) }), 409, 'learned-model-conflict');
    const stale = await expectProblem(await client(b, owner).put(path, { model: smallModel(2) }, { 'if-match': '"7"' }), 409, 'learned-model-conflict');
    expect(stale.currentRevision).toBe(1);
    await expectProblem(await client(b, owner).put(path, { model: smallModel(2) }), 400, 'validation-failed');
    expect((await json<LearnedModel>(await client(a, owner).get(path), 200)).model).toEqual(first);

    // If-Match names the revision as well as the body does.
    const second = await json<LearnedModel>(await client(b, owner).put(path, { model: smallModel(3, ['1']) }, { 'if-match': '"1"' }), 200);
    expect(second).toMatchObject({ revision: 2, classes: ['1'] });

    // Each write is an event of the project's live stream (GET …/events), the refused ones none.
    const events = await a.services.db.kysely.selectFrom('project_events').select('payload').where('project_id', '=', p.id).orderBy('id').execute();
    expect(events.map((e) => JSON.parse(e.payload))).toEqual([
      { type: 'learned', revision: 1, changedBy: owner.email },
      { type: 'learned', revision: 2, changedBy: owner.email },
    ]);
  });

  it('of two members writing on the same revision at once, exactly one wins and the other is told, on both servers', async () => {
    const owner = await signupUser(a);
    const annotator = await signupUser(a);
    const { project: p, path } = await project(owner);
    await json(await client(a, owner).post(`/api/v1/projects/${p.id}/members`, { email: annotator.email, role: 'annotator' }), 201);
    await json(await client(b, annotator).post(`/api/v1/projects/${p.id}/join`, {}), 200);
    await json(await client(a, owner).put(path, { revision: 0, model: smallModel(1) }), 200);

    for (let round = 0; round < 3; round++) {
      const { revision } = await json<LearnedModel>(await client(a, owner).get(path), 200);
      const mine = smallModel(10 + round);
      const theirs = smallModel(20 + round);
      const answers = await Promise.all([client(a, owner).put(path, { revision, model: mine }), client(b, annotator).put(path, { revision, model: theirs })]);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
      const loser = answers.find((r) => r.status === 409)!;
      expect(((await loser.json()) as { type: string; currentRevision: number }).currentRevision).toBe(revision + 1);
      const winner = answers[0].status === 200 ? mine : theirs;
      const now = await json<LearnedModel>(await client(b, owner).get(path), 200);
      expect(now.revision).toBe(revision + 1);
      expect(now.model).toEqual(winner);
    }
  });

  it('members only: outsiders and invitees who have not joined get 404; reviewers and annotators read and write', async () => {
    const owner = await signupUser(a);
    const [annotator, reviewer, invitee, outsider] = await Promise.all([signupUser(a), signupUser(a), signupUser(a), signupUser(a)]);
    const { project: p, path } = await project(owner);
    for (const [who, role] of [[annotator, 'annotator'], [reviewer, 'reviewer'], [invitee, 'reviewer']] as const) {
      await json(await client(a, owner).post(`/api/v1/projects/${p.id}/members`, { email: who.email, role }), 201);
    }
    await json(await client(a, annotator).post(`/api/v1/projects/${p.id}/join`, {}), 200);
    await json(await client(a, reviewer).post(`/api/v1/projects/${p.id}/join`, {}), 200);
    await json(await client(a, owner).put(path, { revision: 0, model: smallModel(1) }), 200);

    for (const stranger of [outsider, invitee]) {
      await expectProblem(await client(b, stranger).get(path), 404, 'not-found');
      await expectProblem(await client(b, stranger).put(path, { revision: 1, model: smallModel(2) }), 404, 'not-found');
    }
    expect((await json<LearnedModel>(await client(b, reviewer).get(path), 200)).revision).toBe(1);
    // A reviewer's accepts and rejects are what teaches the model most: reviewers write it too.
    expect((await json<LearnedModel>(await client(b, reviewer).put(path, { revision: 1, model: smallModel(2) }), 200)).updatedBy).toBe(reviewer.email);
    expect((await json<LearnedModel>(await client(b, annotator).put(path, { revision: 2, model: smallModel(3) }), 200)).updatedBy).toBe(annotator.email);
    // None of the refused writes changed it.
    expect((await json<LearnedModel>(await client(a, owner).get(path), 200)).model).toEqual(smallModel(3));
  });

  it("the project's export carries the model (a zip as learned-model.json, the Maskwright JSON in its field), and reading the export back restores it", async () => {
    const owner = await signupUser(a);
    const { project: p, path } = await project(owner);
    const model = smallModel(5);
    await json(await client(a, owner).put(path, { revision: 0, model }), 200);
    const zip = await client(b, owner).get(`/api/v1/projects/${p.id}/export?format=yolo-detection`);
    expect(zip.status).toBe(200);
    const bytes = new Uint8Array(await zip.arrayBuffer());
    const entry = (await readZip(bytes)).find((e) => e.name === LEARNED_MODEL_FILE);
    expect(JSON.parse(new TextDecoder().decode(entry!.data))).toEqual(model);
    expect((await readDatasetFiles([{ name: 'export.zip', bytes }])).dataset.learnedModel).toEqual(model);
    const ours = await client(b, owner).get(`/api/v1/projects/${p.id}/export?format=maskwright`);
    expect(((await ours.json()) as { learnedModel: unknown }).learnedModel).toEqual(model);
  });

  it('refuses a model that is not one (400) and one over the size limit (413), writing nothing; a large one is read off the event loop', async () => {
    const owner = await signupUser(a);
    const { path } = await project(owner);
    const good = smallModel(1);
    const broken: unknown[] = [
      { ...good, weights: good.weights.map((w) => w.slice(1)) },
      { ...good, version: 99 },
      { ...good, kinds: ['photos'] },
      { ...good, examples: [{ x: [1, 2], c: 0 }] },
      { ...good, mean: good.mean.map(() => 'x') },
      'not an object',
    ];
    for (const model of broken) await expectProblem(await client(a, owner).put(path, { revision: 0, model }), 400, 'validation-failed');
    await expectProblem(await a.fetch(path, { method: 'PUT', headers: { ...owner.bearer, 'content-type': 'application/json' }, body: '{"revision": 0, "model": ' }), 400, 'malformed-json');
    const huge = { ...good, examples: Array.from({ length: 6000 }, () => ({ x: good.mean, c: 1 })) };
    await expectProblem(await client(a, owner).put(path, { revision: 0, model: huge }), 413, 'payload-too-large');
    await expectProblem(await client(b, owner).get(path), 404, 'not-found');

    // Over 128 KiB the body is parsed and checked in a worker thread, as a large annotation write is.
    const large = { ...good, examples: Array.from({ length: 1500 }, (_, i) => ({ x: good.mean.map((m) => m + i * 1e-6), c: 1 })) };
    const threads = a.services.projectWorkers.threadJobs.learned;
    expect(JSON.stringify(large).length).toBeGreaterThan(128 * 1024);
    await json(await client(a, owner).put(path, { revision: 0, model: large }), 200);
    expect(a.services.projectWorkers.threadJobs.learned).toBe(threads + 1);
    expect((await json<LearnedModel>(await client(b, owner).get(path), 200)).model).toEqual(large);
  });
});

/** Raccoons: taught on four photos, proposed on two others (neither seen while teaching). */
const SEED_PHOTOS = ['raccoon-1.jpg', 'raccoon-10.jpg', 'raccoon-101.jpg', 'raccoon-103.jpg'];
const JOB_PHOTOS = ['raccoon-104.jpg', 'raccoon-108.jpg'];

describe.skipIf(!HAS_RACCOONS).each(DATABASES)('learned jobs on real photos (%s)', (dbKind) => {
  let a: TestServer;
  let model: LearnedClassesState;
  beforeAll(async () => {
    model = await raccoonModel(SEED_PHOTOS, '1');
    a = await startTestServer({ db: dbKind, backend: await sharedEngine(), config: { jobs: { concurrency: 1, taskTimeoutSeconds: 300, maintenanceSeconds: 15, resumeSeconds: 1 } } });
  }, 600_000);
  afterEach(async () => a.checkLedger());
  afterAll(async () => a?.cleanup());

  it("proposes the project's learned class on photos it never saw, as unreviewed proposals, one credit per image that got any", async () => {
    const owner = await signupUser(a);
    const api = client(a, owner);
    const p = await json<Project>(await api.post('/api/v1/projects', { name: 'Raccoons', classes: [{ id: 1, name: 'raccoon', color: '#ff5c5c' }] }), 201);
    const base = `/api/v1/projects/${p.id}`;
    const images: ProjectImage[] = [];
    for (const name of JOB_PHOTOS) images.push(await json<ProjectImage>(await api.post(`${base}/images`, { name, image: (await raccoonBytes(name)).toString('base64') }), 201));
    await expectProblem(await api.post(`${base}/jobs`, { kind: 'learned' }), 409, 'learned-model-missing');
    await json(await api.put(`${base}/learned`, { revision: 0, model }), 200);

    const before = await creditsOf(a, owner);
    const job = await json<Job>(await api.post(`${base}/jobs`, { kind: 'learned' }), 202);
    expect(job).toMatchObject({ kind: 'learned', state: 'queued', total: JOB_PHOTOS.length });
    const deadline = Date.now() + 540_000;
    let finished = job;
    while (!['done', 'failed'].includes(finished.state) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      finished = await json<Job>(await api.get(`${base}/jobs/${job.id}`), 200);
    }
    expect(finished).toMatchObject({ state: 'done', done: JOB_PHOTOS.length, failed: 0 });

    const boxes = await raccoonBoxes();
    let withProposals = 0;
    for (const [i, image] of images.entries()) {
      const { objects } = await json<ImageAnnotations>(await api.get(`${base}/images/${image.id}/annotations`), 200);
      for (const o of objects) expect(o).toMatchObject({ review: 'unreviewed', proposedBy: 'learned', classId: 1, label: 'raccoon' });
      if (objects.length) withProposals++;
      // The raccoon itself is among them: a proposal's box on the ground truth's (IoU ≥ 0.5, the eval's match).
      const truth = boxes.get(JOB_PHOTOS[i])!;
      const best = Math.max(...objects.map((o) => {
        const points = o.polygons.flatMap((polygon) => polygon.outer);
        const box = { x0: Math.min(...points.map((q) => q[0])), y0: Math.min(...points.map((q) => q[1])), x1: Math.max(...points.map((q) => q[0])), y1: Math.max(...points.map((q) => q[1])) };
        return Math.max(...truth.map((t) => boxIoU(t, box)));
      }));
      expect(best, `${JOB_PHOTOS[i]}: ${objects.length} proposals`).toBeGreaterThanOrEqual(0.5);
    }
    // One credit per image, refunded where an image got nothing.
    expect(before - (await creditsOf(a, owner))).toBe(withProposals);
  }, 600_000);
});
