/**
 * Bad input on the project routes over real HTTP, on SQLite and PostgreSQL (issue 39): a revision
 * past the database's 32-bit column, control characters in names, and paths in image names are
 * answered 400 (or made harmless), never 5xx, and never reach an export; project and image ids say
 * nothing about when they were made.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readZip } from '../annotations/formats/zip';
import type { Project, ProjectImage } from '../contract/projects';
import { DATABASES, expectProblem, NO_INFERENCE, sampleBase64, signupUser, startTestServer, type TestServer, type TestUser } from '../../test/support/server/harness';

async function json<T>(response: Response, status: number): Promise<T> {
  const text = await response.text();
  expect(response.status, text.slice(0, 300)).toBe(status);
  return JSON.parse(text) as T;
}

describe.each(DATABASES)('project input (%s)', (dbKind) => {
  let server: TestServer;
  let owner: TestUser;
  beforeAll(async () => {
    server = await startTestServer({ db: dbKind, backend: NO_INFERENCE });
    owner = await signupUser(server);
  });
  afterAll(async () => server?.cleanup());

  const post = (path: string, body: unknown) => server.fetch(path, { method: 'POST', headers: owner.bearer, json: body });
  const put = (path: string, body: unknown, headers: Record<string, string> = {}) => server.fetch(path, { method: 'PUT', headers: { ...owner.bearer, ...headers }, json: body });
  const get = (path: string) => server.fetch(path, { headers: owner.bearer });

  async function projectWithImage(name = 'chelsea.png') {
    const project = await json<Project>(await post('/api/v1/projects', { name: 'Input', classes: [{ id: 1, name: 'cat', color: '#ff5c5c' }] }), 201);
    const image = await json<ProjectImage>(await post(`/api/v1/projects/${project.id}/images`, { name, image: sampleBase64('chelsea.png') }), 201);
    return { project, image };
  }

  it('refuses a revision the database cannot count past, in the body or in If-Match, with 400', async () => {
    const { project, image } = await projectWithImage();
    const path = `/api/v1/projects/${project.id}/images/${image.id}/annotations`;
    for (const revision of [2_147_483_647, 2_147_483_648, 9_007_199_254_740_991]) {
      await expectProblem(await put(path, { revision, objects: [] }), 400, 'validation-failed');
      await expectProblem(await put(path, { objects: [] }, { 'If-Match': `"${revision}"` }), 400, 'validation-failed');
    }
    // The highest revision a write may name is still answered as a conflict, not an error.
    await expectProblem(await put(path, { revision: 2_147_483_646, objects: [] }), 409, 'revision-conflict');
    expect((await put(path, { revision: 0, objects: [] })).status).toBe(200);
  });

  it('refuses control characters and direction marks in project, class and image names', async () => {
    for (const name of ['a\u0000b', 'line\nbreak', 'gpj\u202Eexe.png', 'bell\u0007']) {
      await expectProblem(await post('/api/v1/projects', { name }), 400, 'validation-failed');
      await expectProblem(await post('/api/v1/projects', { name: 'ok', classes: [{ id: 1, name, color: '#ffffff' }] }), 400, 'validation-failed');
    }
    const { project } = await projectWithImage();
    await expectProblem(await put(`/api/v1/projects/${project.id}/classes`, { classes: [{ id: 1, name: 'cat\u0000', color: '#ffffff' }] }), 400, 'validation-failed');
    await expectProblem(await post(`/api/v1/projects/${project.id}/images`, { name: 'x\u0000.png', image: sampleBase64('coffee.png') }), 400, 'validation-failed');
    await expectProblem(await post(`/api/v1/projects/${project.id}/images`, { name: '../', image: sampleBase64('coffee.png') }), 400, 'validation-failed');
  });

  it("keeps only an image name's last path segment, at upload and in every export", async () => {
    const { project, image } = await projectWithImage('../../etc/evil.png');
    expect(image.name).toBe('evil.png');
    // A name stored before uploads were checked is made safe when exported (PostgreSQL's text holds no NUL: a bell stands for the controls).
    await server.services.db.kysely.updateTable('project_images').set({ name: '..\\..\\x/../../stored\u0007.png' }).where('id', '=', image.id).execute();
    await server.services.db.kysely.updateTable('projects').set({ classes: JSON.stringify([{ id: 1, name: 'c\u0007at', color: '#ff5c5c' }]) }).where('id', '=', project.id).execute();
    const coco = await json<{ images: { file_name: string }[]; categories: { name: string }[] }>(await get(`/api/v1/projects/${project.id}/export?format=coco`), 200);
    expect(coco.images.map((i) => i.file_name)).toEqual(['stored.png']);
    expect(coco.categories.map((c) => c.name)).toEqual(['cat']);
    const labelme = await get(`/api/v1/projects/${project.id}/export?format=labelme`);
    expect(labelme.status).toBe(200);
    for (const format of ['labelme', 'voc', 'cvat', 'yolo', 'png-masks']) {
      const response = await get(`/api/v1/projects/${project.id}/export?format=${format}`);
      expect(response.status, format).toBe(200);
      const body = new Uint8Array(await response.arrayBuffer());
      // Entry names, and the text of every entry that is not itself an image.
      const texts = response.headers.get('content-type')!.includes('zip')
        ? (await readZip(body)).map((f) => (f.name.endsWith('.png') ? f.name : `${f.name}\n${new TextDecoder().decode(f.data)}`))
        : [new TextDecoder().decode(body)];
      for (const text of texts) {
        expect(text, format).not.toContain('..');
        expect(text, format).not.toContain('\u0007');
      }
    }
  });

  it('gives projects and images opaque ids, with no time in them', async () => {
    const first = await projectWithImage();
    server.clock.advance(86_400_000 * 400);
    const second = await projectWithImage();
    for (const id of [first.project.id, second.project.id]) expect(id).toMatch(/^prj_[A-Za-z0-9_-]{22}$/);
    for (const id of [first.image.id, second.image.id]) expect(id).toMatch(/^img_[A-Za-z0-9_-]{22}$/);
    // Time-ordered ids would share their leading characters when made close together.
    const ids = await Promise.all(Array.from({ length: 8 }, async () => (await json<Project>(await post('/api/v1/projects', { name: 'n' }), 201)).id.slice(4, 8)));
    expect(new Set(ids).size).toBeGreaterThan(4);
  });
});
