/**
 * Two studios on one server project's learned model, over real HTTP against the real server and
 * database: loading, writing back, a stale write rebased without losing either side's lessons, and a
 * model over the size limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_INFERENCE, signupUser, startTestServer, type TestServer, type TestUser } from '../../../test/support/server/harness';
import type { LearnedClassesState } from '../../engine/learn/learnedClasses';
import { ProjectApi } from '../projects/projectApi';
import { documentLessons } from './lessons';
import { ProjectLearnedSync } from './projectLearnedSync';
import { CLASSES, drawn, examplesOf, testStudio } from './testLearners';

const SIZE_LIMIT = 64 * 1024;

let server: TestServer;
let owner: TestUser;
let api: ProjectApi;

beforeAll(async () => {
  server = await startTestServer({ db: 'sqlite', backend: NO_INFERENCE, config: { learnedModelMaxBytes: SIZE_LIMIT } });
  owner = await signupUser(server);
  api = new ProjectApi({ baseUrl: server.url, authHeaders: () => owner.bearer });
}, 60_000);
afterAll(async () => server?.cleanup());

function syncOf(studio: ReturnType<typeof testStudio>, projectId: string, notices: string[] = [], sizeLimit?: number) {
  return new ProjectLearnedSync(
    {
      api,
      projectId,
      model: () => (studio.learner.taughtClasses().length ? studio.learner.learnedModel().model : undefined),
      taughtLessons: () => studio.learner.taughtLessons(),
      documentLessons: () => documentLessons(studio.doc),
      adopt: (model, known) => studio.learner.adoptModel(model, known),
      learnPending: () => studio.learner.learnPending(),
      notice: (message) => notices.push(message),
    },
    0,
    sizeLimit,
  );
}

const newProject = async () => (await api.create('Stripes', CLASSES.map((c) => ({ id: c.id, name: c.name, color: '#ff5c5c' })))).id;
const stored = async (projectId: string) => (await api.getLearnedModel(projectId))!;
const classesOf = (model: LearnedClassesState) => model.classes.filter((c) => c !== '').sort();

describe('ProjectLearnedSync', () => {
  it("writes the session's model to a project made from it; another studio opening the project teaches nothing twice", async () => {
    const projectId = await newProject();
    const first = testStudio([drawn('red', 0), drawn('red', 1)]);
    await first.learner.learnPending();
    await syncOf(first, projectId).open();
    expect(await stored(projectId)).toMatchObject({ revision: 1, classes: ['red'] });

    const second = testStudio([drawn('red', 0), drawn('red', 1)]);
    await syncOf(second, projectId).open();
    await second.learner.learnPending();
    expect(second.described).toBe(0);
    expect(second.learner.taughtClasses()).toEqual(['red']);
    expect(examplesOf(second, 'red')).toBe(2);
  });

  it('keeps both sides when two studios taught at once: the stale write reads the newer model and teaches its own lessons into it', async () => {
    const projectId = await newProject();
    const a = testStudio([drawn('red', 0)]);
    await a.learner.learnPending();
    const syncA = syncOf(a, projectId);
    await syncA.open();
    const b = testStudio([drawn('red', 0)]);
    const syncB = syncOf(b, projectId);
    await syncB.open();

    b.add(drawn('blue', 0), drawn('blue', 1));
    await b.learner.learnPending();
    await syncB.flush();
    expect(syncB.serverRevision).toBe(2);

    // A learned green on revision 1: its write is refused (409), and it rebases on revision 2.
    a.add(drawn('green', 0));
    await a.learner.learnPending();
    const describedBefore = a.described;
    await syncA.flush();
    expect(syncA.serverRevision).toBe(3);
    const model = (await stored(projectId)).model as LearnedClassesState;
    expect(classesOf(model)).toEqual(['blue', 'green', 'red']);
    // Only A's own lesson was taught again; red (in both) and blue (B's) are each held once.
    expect(a.described - describedBefore).toBe(1);
    expect(examplesOf(a, 'red')).toBe(1);
    expect(examplesOf(a, 'blue')).toBe(2);
    expect(examplesOf(a, 'green')).toBe(1);

    // B hears of it (the live stream's `learned` event) and reads it; nothing of its own to add.
    await syncB.reload();
    expect(syncB.serverRevision).toBe(3);
    expect(b.learner.taughtClasses().sort()).toEqual(['blue', 'green', 'red']);
  });

  it('tells the person when the model is over the server size limit, keeps it, and writes nothing', async () => {
    const projectId = await newProject();
    const big = testStudio(Array.from({ length: 1500 }, (_, n) => drawn(CLASSES[n % 3].name, n, `o${n}`)));
    await big.learner.learnPending();
    expect(JSON.stringify(big.learner.learnedModel().model).length).toBeGreaterThan(SIZE_LIMIT);
    const notices: string[] = [];
    await syncOf(big, projectId, notices).open();
    expect(notices).toEqual([expect.stringMatching(/^The learned model \(\d+\.\d MB\) is over the server's size limit: it is kept in this browser/)]);
    expect(await api.getLearnedModel(projectId)).toBeNull();
    expect(big.learner.taughtClasses()).toHaveLength(3);
  });

  it('does not send a model over the size limit it knows of (the server would reset the connection, not answer 413)', async () => {
    const projectId = await newProject();
    const studio = testStudio([drawn('red', 0), drawn('blue', 0)]);
    await studio.learner.learnPending();
    const size = JSON.stringify(studio.learner.learnedModel().model).length;
    expect(size).toBeLessThan(SIZE_LIMIT);
    const notices: string[] = [];
    await syncOf(studio, projectId, notices, size - 1).open();
    expect(notices).toEqual([expect.stringMatching(/over the server's size limit/)]);
    expect(await api.getLearnedModel(projectId)).toBeNull();
  });

  it('opening a project without a model, in place of an unrelated session, starts afresh and writes nothing', async () => {
    const projectId = await newProject();
    const studio = testStudio([drawn('red', 0)]);
    await studio.learner.learnPending();
    studio.doc = { ...studio.doc, objects: { [studio.doc.images[0].id]: [drawn('blue', 0, 'project-object')] } };
    await syncOf(studio, projectId).open();
    expect(studio.learner.taughtClasses()).toEqual([]);
    expect(await api.getLearnedModel(projectId)).toBeNull();
    await studio.learner.learnPending();
    expect(studio.learner.taughtClasses()).toEqual(['blue']);
  });
});
