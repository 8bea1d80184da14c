/**
 * The studio's client of a project's learned model (what the studio's learned classes will save to
 * and load from), against a real server and database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_INFERENCE, signupUser, startTestServer, type TestServer } from '../../../test/support/server/harness';
import { LearnedClasses } from '../../engine/learn/learnedClasses';
import { APPEARANCE_LENGTH } from '../../engine/learn/descriptors';
import { LearnedModelConflict, ProjectApi } from './projectApi';

function taught(offset: number) {
  const model = new LearnedClasses({ kinds: ['appearance'] });
  const region = (centre: number) => ({ sam: [], detectors: [], backbone: [], appearance: Array.from({ length: APPEARANCE_LENGTH }, (_, j) => centre + j * 0.01 + offset) });
  model.learnAll([{ descriptor: region(1), classId: '1' }, { descriptor: region(-1), classId: null }]);
  return model.toJSON();
}

describe('ProjectApi: the learned model', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ db: 'sqlite', backend: NO_INFERENCE });
  }, 60_000);
  afterAll(async () => server?.cleanup());

  it('has none at first, saves one, loads it back, and says so when another studio saved first', async () => {
    const user = await signupUser(server);
    const api = new ProjectApi({ baseUrl: server.url, authHeaders: () => user.bearer });
    const project = await api.create('Learned', [{ id: 1, name: 'raccoon', color: '#ff5c5c' }]);
    expect(await api.getLearnedModel(project.id)).toBeNull();
    const saved = await api.putLearnedModel(project.id, 0, taught(0));
    expect(saved).toMatchObject({ revision: 1, classes: ['1'], updatedBy: user.email });
    expect((await api.getLearnedModel(project.id))!.model).toEqual(taught(0));
    await api.putLearnedModel(project.id, 1, taught(1));
    const stale = await api.putLearnedModel(project.id, 1, taught(2)).catch((error: unknown) => error);
    expect(stale).toBeInstanceOf(LearnedModelConflict);
    expect((stale as LearnedModelConflict).currentRevision).toBe(2);
    await expect(api.getLearnedModel('prj_nope')).resolves.toBeNull();
  });
});
