/**
 * U on a photo another member removed while it held my unsaved edits: it goes back into the project
 * through the studio's real sync, against a real server and database, once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_INFERENCE, sampleBase64, signupUser, startTestServer, type TestServer, type TestUser } from '../../../test/support/server/harness';
import { followKeptPhotos, keepOutside } from '../projects/keptPhotos';
import { ProjectApi } from '../projects/projectApi';
import { closedProjectState, useOpenProject } from '../projects/projectStore';
import { ProjectSync } from '../projects/projectSync';
import { CAT, square } from '../projects/testObjects';
import { handleShortcut } from '../shortcuts';
import { setObjects } from '../state/documentOps';
import { emptyDocument } from '../state/model';
import { currentDocument, useStudio } from '../state/studioStore';
import { useUi } from '../state/uiStore';
import { commandHelpRows } from './registry';

const press = (key: string) => handleShortcut({ key, ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, target: { tagName: 'BODY', isContentEditable: false } } as unknown as KeyboardEvent);

describe('adding a removed photo back (U)', () => {
  let server: TestServer;
  let owner: TestUser;
  beforeAll(async () => {
    server = await startTestServer({ db: 'sqlite', backend: NO_INFERENCE });
    owner = await signupUser(server);
  });
  afterAll(async () => server?.cleanup());

  it('is in the help with its key', () => {
    expect(commandHelpRows()).toContainEqual({ keys: 'U', action: expect.stringMatching(/back to the project/) });
  });

  it('uploads the kept photo again with my changes, as one photo written once; on a photo in the project it does nothing', async () => {
    const api = new ProjectApi({ baseUrl: server.url, authHeaders: () => owner.bearer });
    const project = await api.create('Add back', [CAT]);
    useUi.setState({ page: 'studio', notice: null });
    useOpenProject.setState(closedProjectState());
    useStudio.getState().load({
      ...emptyDocument(),
      images: [{ id: 'img-cat', name: 'chelsea.png', width: 451, height: 300 }],
      activeImageId: 'img-cat',
      objects: { 'img-cat': [square('o1', 10)] },
      classes: [CAT],
    });
    const sync = new ProjectSync(project, new Map(), {
      api,
      document: currentDocument,
      replaceObjects: (imageId, objects) => useStudio.getState().load(setObjects(currentDocument(), imageId, objects)),
      imageBase64: async () => sampleBase64('chelsea.png'),
      status: () => undefined,
    });
    let addingBack: Promise<void> | undefined;
    const stopFollowing = followKeptPhotos((imageId) => void (addingBack = sync.addBack(imageId)));
    try {
      await sync.push();
      const first = sync.images.get('img-cat')!.serverId;

      // In the project: U is not this command's.
      expect(press('u')).toBe(false);

      // I add an object, not written yet, and the owner removes the photo meanwhile.
      useStudio.getState().load(setObjects(currentDocument(), 'img-cat', [square('o1', 10), square('o2', 100)]));
      expect((await server.fetch(`/api/v1/projects/${project.id}/images/${first}`, { method: 'DELETE', headers: owner.bearer })).status).toBe(204);
      expect(sync.release(first)).toEqual({ imageId: 'img-cat', kept: true });
      keepOutside({ imageId: 'img-cat', name: 'chelsea.png', removedBy: owner.email });
      await sync.push();
      expect(await api.images(project.id)).toEqual([]);

      // A reviewer may not add photos: U is not offered, nothing is sent.
      useOpenProject.setState({ open: { id: project.id, name: project.name, role: 'reviewer' } });
      expect(press('u')).toBe(false);
      expect(addingBack).toBeUndefined();
      useOpenProject.setState({ open: { id: project.id, name: project.name, role: 'owner' } });

      expect(press('u')).toBe(true);
      await addingBack;
      const images = await api.images(project.id);
      expect(images.map((i) => i.name)).toEqual(['chelsea.png']);
      const stored = await api.annotations(project.id, images[0].id);
      expect(stored.objects.map((o) => o.id)).toEqual(['o1', 'o2']);
      expect(stored.revision).toBe(1);
      expect(useOpenProject.getState().keptOutside).toEqual([]);
      expect(useUi.getState().notice).toMatch(/chelsea\.png is going back into the project/);

      // Pressed again: nothing more to add back, no second photo.
      expect(press('u')).toBe(false);
      await sync.push();
      expect((await api.images(project.id)).length).toBe(1);
    } finally {
      stopFollowing();
    }
  });
});
