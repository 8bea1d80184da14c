/**
 * The studio's project sync against a real server and database (SQLite), as two people in two
 * browsers: the owner's session becomes a project, a reviewer opens it and sees the same, and two
 * edits of one image on the same revision lose nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_INFERENCE, sampleBase64, signupUser, startTestServer, type TestServer, type TestUser } from '../../../test/support/server/harness';
import { emptyDocument, type StudioDocument } from '../state/model';
import { type Annotation } from '../../annotations/annotation';
import { setObjects } from '../state/documentOps';
import { ProjectApi } from './projectApi';
import { CAT, square } from './testObjects';
import { openProject, ProjectSync, type SyncState, type SyncedImage } from './projectSync';
import type { Project } from '../../contract/projects';

/** One person's studio: a document, a sync, and the states it showed. */
function studio(server: TestServer, user: TestUser, project: Project, doc: StudioDocument, images = new Map<string, SyncedImage>()) {
  const api = new ProjectApi({ baseUrl: server.url, authHeaders: () => user.bearer });
  const person = {
    doc,
    states: [] as Array<{ state: SyncState; message: string | null }>,
    notOpen: [] as string[],
    sync: undefined as unknown as ProjectSync,
    edit(imageId: string, objects: Annotation[]) {
      person.doc = setObjects(person.doc, imageId, objects);
    },
  };
  person.sync = new ProjectSync(project, images, {
    api,
    document: () => person.doc,
    replaceObjects: (imageId, objects) => person.edit(imageId, objects),
    // The sample named like the photo: two photos are two files.
    imageBase64: async (imageId) => sampleBase64(person.doc.images.find((image) => image.id === imageId)?.name ?? 'chelsea.png'),
    status: (state, message) => person.states.push({ state, message }),
    imageNotOpen: (serverImageId) => person.notOpen.push(serverImageId),
  });
  return person;
}

describe('studio project sync (real server)', () => {
  let server: TestServer;
  let owner: TestUser;
  let reviewer: TestUser;
  beforeAll(async () => {
    server = await startTestServer({ db: 'sqlite', backend: NO_INFERENCE });
    [owner, reviewer] = [await signupUser(server), await signupUser(server)];
  });
  afterAll(async () => server?.cleanup());

  it('makes a project of a session, shows it to a reviewer, and keeps both of two edits on one revision', async () => {
    const ownerApi = new ProjectApi({ baseUrl: server.url, authHeaders: () => owner.bearer });
    const session: StudioDocument = {
      ...emptyDocument(),
      images: [{ id: 'img-local', name: 'chelsea.png', width: 451, height: 300 }],
      objects: { 'img-local': [square('o1', 10), square('o2', 100, { review: { state: 'unreviewed', source: 'text-prompt' } })] },
      classes: [CAT],
    };
    const project = await ownerApi.create('Cats', [CAT]);
    const alice = studio(server, owner, project, session);
    await alice.sync.push();
    expect(alice.states.map((s) => s.state)).toEqual(['syncing', 'saved']);
    await ownerApi.share(project.id, reviewer.email, 'reviewer');

    const reviewerApi = new ProjectApi({ baseUrl: server.url, authHeaders: () => reviewer.bearer });
    // Sharing is an invitation: the reviewer joins first.
    expect((await reviewerApi.invitations()).map((i) => i.projectId)).toEqual([project.id]);
    await reviewerApi.join(project.id);
    const opened = await openProject(reviewerApi, project.id, (image) => `img-${image.sha256.slice(0, 24)}`);
    const imageId = opened.document.images[0].id;
    expect(opened.project.role).toBe('reviewer');
    expect(opened.document.objects[imageId]).toEqual(session.objects['img-local']);
    expect(opened.document.classes).toEqual([CAT]);

    // Both edit o1 on revision 1: Alice moves it, Bob rejects it and adds o3. Alice writes first.
    const bob = studio(server, reviewer, opened.project, opened.document, opened.images);
    alice.edit('img-local', [square('o1', 30), square('o2', 100, { review: { state: 'unreviewed', source: 'text-prompt' } })]);
    bob.edit(imageId, [square('o1', 10, { review: { state: 'rejected' } }), square('o2', 100, { review: { state: 'unreviewed', source: 'text-prompt' } }), square('o3', 200)]);
    await alice.sync.push();
    await bob.sync.push();
    expect(bob.states.at(-1)?.state).toBe('conflict');
    expect(bob.states.at(-1)?.message).toContain('both versions are kept of one object');
    const expected = [square('o1', 30), square('o1~mine', 10, { review: { state: 'rejected' } }), square('o2', 100, { review: { state: 'unreviewed', source: 'text-prompt' } }), square('o3', 200)];
    expect(bob.doc.objects[imageId]).toEqual(expected);
    const stored = await reviewerApi.annotations(project.id, opened.images.get(imageId)!.serverId);
    expect(stored.revision).toBe(3);
    expect(stored.objects.map((o) => [o.id, o.changedBy])).toEqual([['o1', owner.email], ['o1~mine', reviewer.email], ['o2', owner.email], ['o3', reviewer.email]]);

    // Nothing changed since: another push writes nothing.
    const before = bob.states.length;
    await bob.sync.push();
    expect(bob.states.length).toBe(before);
  });

  it("applies what someone else wrote when told (a live event), keeping local edits not yet written", async () => {
    const ownerApi = new ProjectApi({ baseUrl: server.url, authHeaders: () => owner.bearer });
    const project = await ownerApi.create('Live', [CAT]);
    const session: StudioDocument = { ...emptyDocument(), images: [{ id: 'img-a', name: 'chelsea.png', width: 451, height: 300 }], objects: { 'img-a': [square('o1', 10)] }, classes: [CAT] };
    const alice = studio(server, owner, project, session);
    await alice.sync.push();
    await ownerApi.share(project.id, reviewer.email, 'reviewer');
    const reviewerApi = new ProjectApi({ baseUrl: server.url, authHeaders: () => reviewer.bearer });
    await reviewerApi.join(project.id);
    const opened = await openProject(reviewerApi, project.id, (image) => `img-${image.sha256.slice(0, 24)}`);
    const bob = studio(server, reviewer, opened.project, opened.document, opened.images);
    const bobImage = opened.document.images[0].id;
    const serverId = opened.images.get(bobImage)!.serverId;

    // Bob rejects o1 and it is written; Alice meanwhile adds o2, not written yet.
    bob.edit(bobImage, [square('o1', 10, { review: { state: 'rejected' } })]);
    await bob.sync.push();
    const written = await reviewerApi.annotations(project.id, serverId);
    alice.edit('img-a', [square('o1', 10), square('o2', 100)]);
    await alice.sync.pull(serverId, written.revision);
    const both = [square('o1', 10, { review: { state: 'rejected' } }), square('o2', 100)];
    expect(alice.doc.objects['img-a']).toEqual(both);
    expect(alice.states.at(-1)?.state).toBe('saved');
    expect(alice.sync.busy).toBe(false);
    // Her edit was written on Bob's revision; told of it, Bob sees both.
    const now = await ownerApi.annotations(project.id, serverId);
    expect(now.revision).toBe(written.revision + 1);
    await bob.sync.pull(serverId, now.revision);
    expect(bob.doc.objects[bobImage]).toEqual(both);
    // Nothing of his own to write: merged, he is up to date again.
    expect(bob.states.at(-1)?.state).toBe('saved');

    // Told of a revision it holds already (its own write echoed back): nothing is fetched or written.
    const before = alice.states.length;
    await alice.sync.pull(serverId, now.revision);
    expect(alice.states.length).toBe(before);
    expect(alice.doc.objects['img-a']).toEqual(both);

    // A photo added since Bob opened the project is named, not silently dropped.
    const added = await ownerApi.addImage(project.id, 'coffee.png', sampleBase64('coffee.png'));
    await bob.sync.pull(added.id, 1);
    expect(bob.notOpen).toEqual([added.id]);
    expect(bob.doc.images).toHaveLength(1);
  });

  it('a photo someone removes keeps my unsaved edits here, outside the project; one without edits just goes', async () => {
    const ownerApi = new ProjectApi({ baseUrl: server.url, authHeaders: () => owner.bearer });
    const project = await ownerApi.create('Removed', [CAT]);
    const session: StudioDocument = {
      ...emptyDocument(),
      images: [
        { id: 'img-cat', name: 'chelsea.png', width: 451, height: 300 },
        { id: 'img-cup', name: 'coffee.png', width: 400, height: 400 },
      ],
      objects: { 'img-cat': [square('o1', 10)], 'img-cup': [square('c1', 10)] },
      classes: [CAT],
    };
    const alice = studio(server, owner, project, session);
    await alice.sync.push();
    const [cat, cup] = ['img-cat', 'img-cup'].map((id) => alice.sync.images.get(id)!.serverId);

    // Alice adds an object to the cat, not written yet; both photos are removed by someone else.
    alice.edit('img-cat', [square('o1', 10), square('o2', 100)]);
    for (const serverId of [cat, cup]) expect((await fetch(`${server.url}/api/v1/projects/${project.id}/images/${serverId}`, { method: 'DELETE', headers: owner.bearer })).status).toBe(204);
    expect(alice.sync.release(cat)).toEqual({ imageId: 'img-cat', kept: true });
    expect(alice.sync.release(cup)).toEqual({ imageId: 'img-cup', kept: false });
    // Nothing unsaved on it: the studio takes it away (remoteImages.ts).
    alice.doc = { ...alice.doc, images: alice.doc.images.filter((image) => image.id !== 'img-cup') };

    // The kept photo is not put back into the project behind the remover's back...
    await alice.sync.push();
    expect(await ownerApi.images(project.id)).toEqual([]);
    expect(alice.doc.objects['img-cat']).toEqual([square('o1', 10), square('o2', 100)]);
    // ...but goes back, with both objects, when she says so.
    await alice.sync.addBack('img-cat');
    const [back] = await ownerApi.images(project.id);
    expect((await ownerApi.annotations(project.id, back.id)).objects.map((o) => o.id)).toEqual(['o1', 'o2']);
  });

  it("opens the images assigned to me first, and names them", async () => {
    const ownerApi = new ProjectApi({ baseUrl: server.url, authHeaders: () => owner.bearer });
    const project = await ownerApi.create('Assigned', [CAT]);
    const [first, second] = [await ownerApi.addImage(project.id, 'chelsea.png', sampleBase64('chelsea.png')), await ownerApi.addImage(project.id, 'coffee.png', sampleBase64('coffee.png'))];
    await ownerApi.share(project.id, reviewer.email, 'annotator');
    await new ProjectApi({ baseUrl: server.url, authHeaders: () => reviewer.bearer }).join(project.id);
    await server.fetch(`/api/v1/projects/${project.id}/images/${second.id}/assignee`, { method: 'PUT', headers: owner.bearer, json: { assignee: reviewer.email } });
    const annotatorApi = new ProjectApi({ baseUrl: server.url, authHeaders: () => reviewer.bearer });
    const opened = await openProject(annotatorApi, project.id, (image) => image.id, reviewer.email);
    expect(opened.document.images.map((i) => i.name)).toEqual(['coffee.png', 'chelsea.png']);
    expect([...opened.mine]).toEqual([second.id]);
    const asOwner = await openProject(ownerApi, project.id, (image) => image.id, owner.email);
    expect(asOwner.document.images.map((i) => i.id)).toEqual([first.id, second.id]);
    expect(asOwner.mine.size).toBe(0);
  });

  it('says offline when the server does not answer, and error when a role may not write', async () => {
    const project = await new ProjectApi({ baseUrl: server.url, authHeaders: () => owner.bearer }).create('Offline', [CAT]);
    const doc: StudioDocument = { ...emptyDocument(), images: [{ id: 'img-x', name: 'chelsea.png', width: 451, height: 300 }], objects: { 'img-x': [square('o1', 10)] }, classes: [CAT] };
    const away = studio({ ...server, url: 'http://127.0.0.1:9' } as TestServer, owner, project, doc);
    await expect(away.sync.push()).rejects.toThrow();
    expect(away.states.at(-1)?.state).toBe('offline');
    const stranger = studio(server, reviewer, project, doc);
    await expect(stranger.sync.push()).rejects.toThrow();
    expect(stranger.states.at(-1)).toMatchObject({ state: 'error', message: expect.stringContaining('404') });
  });
});
