/**
 * Large annotation writes off the event loop (issue 39), over real HTTP, two servers on one
 * database (SQLite file, or a PostgreSQL schema): a body past the size written at once is parsed,
 * validated and committed by a project worker thread on a connection of its own, so the server's
 * own connection runs no UPDATE of the objects; and, done there, a write still has one winner per
 * revision, loses nothing when many run at once, records its live-stream event, and refuses what
 * it must with a 4xx before anything is written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnnotationObject, ImageAnnotations, Project, ProjectImage } from '../contract/projects';
import { DATABASES, expectJson, expectProblem, NO_INFERENCE, sampleBase64, signupUser, startTestServer, userClient, type TestServer, type TestUser } from '../../test/support/server/harness';
import { DEFAULT_EXPORT_WORKERS } from './exports/projectWorkers';

/** `count` objects, each a ring of `vertices` fractional vertices on a 451 × 300 image, ids prefixed by `tag`. */
function rings(tag: string, count: number, vertices: number): AnnotationObject[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `${tag}-${i}`,
    classId: 1,
    polygons: [{ outer: Array.from({ length: vertices }, (_, k): [number, number] => [225.123456 + 100 * Math.cos((2 * Math.PI * k) / vertices), 150.654321 + 100 * Math.sin((2 * Math.PI * k) / vertices)]), holes: [] }],
    source: 'local',
    confidence: 1,
    visible: true,
    review: 'accepted',
  }));
}

/** Objects whose body is well past what is written on the event loop. */
const large = (tag: string) => rings(tag, 20, 600);

describe.each(DATABASES)('large annotation writes (%s, two servers on one database)', (dbKind) => {
  let a: TestServer;
  let b: TestServer;
  let owner: TestUser;
  beforeAll(async () => {
    a = await startTestServer({ db: dbKind, backend: NO_INFERENCE });
    b = await startTestServer({ db: dbKind, backend: NO_INFERENCE, database: a.database });
    owner = await signupUser(a);
  });
  afterAll(async () => {
    await b?.cleanup();
    await a?.cleanup();
  });

  async function projectWithImages(count: number) {
    const api = userClient(a, owner);
    const project = await expectJson<Project>(await api.post('/api/v1/projects', { name: 'Large', classes: [{ id: 1, name: 'ring', color: '#ff5c5c' }] }), 201);
    const images: ProjectImage[] = [];
    // Distinct files, so that each is an image of its own.
    for (const name of ['chelsea.png', 'coffee.png', 'astronaut.png'].slice(0, count)) images.push(await expectJson<ProjectImage>(await api.post(`/api/v1/projects/${project.id}/images`, { name, image: sampleBase64(name) }), 201));
    return { project, images, path: (image: ProjectImage) => `/api/v1/projects/${project.id}/images/${image.id}/annotations` };
  }

  it('writes a large body in a worker thread: the server\'s own connection runs no UPDATE of the objects, and the event is recorded', async () => {
    const { project, images, path } = await projectWithImages(1);
    const objects = large('big');
    expect(JSON.stringify({ revision: 0, objects }).length).toBeGreaterThan(DEFAULT_EXPORT_WORKERS.inlineWriteMaxChars);
    const statements: string[] = [];
    const stop = a.services.db.observeQueries((sql) => statements.push(sql));
    const threadWrites = a.services.projectWorkers.threadJobs.write;
    let written: ImageAnnotations;
    try {
      written = await expectJson<ImageAnnotations>(await userClient(a, owner).put(path(images[0]), { revision: 0, objects }), 200);
    } finally {
      stop();
    }
    expect(a.services.projectWorkers.threadJobs.write).toBe(threadWrites + 1);
    expect(statements.filter((sql) => /^update\s+"project_images"/i.test(sql))).toEqual([]);
    expect(written.revision).toBe(1);
    expect(written.objects.map((o) => o.id)).toEqual(objects.map((o) => o.id));
    expect(written.objects[0]).toMatchObject({ changedBy: owner.email, polygons: objects[0].polygons });
    const stored = await expectJson<ImageAnnotations>(await userClient(b, owner).get(path(images[0])), 200);
    expect(stored).toEqual(written);
    const events = await a.services.db.kysely.selectFrom('project_events').select('payload').where('project_id', '=', project.id).execute();
    expect(events.map((e) => JSON.parse(e.payload))).toContainEqual({ type: 'annotations', imageId: images[0].id, revision: 1, changedBy: owner.email });
  });

  it("listing, exporting, a thumbnail, the file and a known file's upload read no image's objects on the server's own connection", async () => {
    const { project, images, path } = await projectWithImages(1);
    const api = userClient(a, owner);
    await expectJson<ImageAnnotations>(await api.put(path(images[0]), { revision: 0, objects: large('read') }), 200);
    const statements: string[] = [];
    const stop = a.services.db.observeQueries((sql) => statements.push(sql));
    try {
      await expectJson(await api.get(`/api/v1/projects/${project.id}/images`), 200);
      // The export's worker thread reads the objects on a connection of its own; the server only lists the images.
      expect((await api.get(`/api/v1/projects/${project.id}/export?format=coco`)).status).toBe(200);
      expect((await api.get(`/api/v1/projects/${project.id}/images/${images[0].id}/thumbnail`)).status).toBe(200);
      expect((await api.get(`/api/v1/projects/${project.id}/images/${images[0].id}/file`)).status).toBe(200);
      expect((await api.post(`/api/v1/projects/${project.id}/images`, { name: 'again.png', image: sampleBase64('chelsea.png') })).status).toBe(200);
    } finally {
      stop();
    }
    // Megabytes of JSON read by the event loop's synchronous SQLite held it for the whole read (issue 39).
    const readingObjects = statements.filter((sql) => /^select\b/i.test(sql) && /from "project_images"/i.test(sql) && /(^select \*|"project_images"\.\*|"objects")/i.test(sql));
    expect(readingObjects).toEqual([]);
  });

  it('two large writes on one revision, one per server, and a small one: exactly one wins; the others get 409 with what is stored, and nothing is lost', async () => {
    const { images, path } = await projectWithImages(1);
    const target = path(images[0]);
    const bodies = [large('alice'), large('bob'), rings('carol', 1, 4)];
    const responses = await Promise.all([userClient(a, owner).put(target, { revision: 0, objects: bodies[0] }), userClient(b, owner).put(target, { revision: 0, objects: bodies[1] }), userClient(a, owner).put(target, { objects: bodies[2] }, { 'if-match': '"0"' })]);
    expect(responses.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    const winner = responses.findIndex((r) => r.status === 200);
    const won = (await responses[winner].json()) as ImageAnnotations;
    expect(won.objects.map((o) => o.id)).toEqual(bodies[winner].map((o) => o.id));
    for (const [i, response] of responses.entries()) {
      if (i === winner) continue;
      const conflict = await expectProblem(response, 409, 'revision-conflict');
      expect(conflict).toMatchObject({ currentRevision: 1, detail: 'the annotations are at revision 1, not 0' });
      expect(conflict.current).toEqual(won);
    }
    const stored = await expectJson<ImageAnnotations>(await userClient(a, owner).get(target), 200);
    expect(stored).toEqual(won);
  });

  it('many large writes at once on different images and servers all land, each whole', async () => {
    const { images, path } = await projectWithImages(3);
    const writes = images.map((image, i) => ({ server: i % 2 ? b : a, image }));
    const responses = await Promise.all(writes.map(({ server, image }, i) => userClient(server, owner).put(path(image), { revision: 0, objects: large(`first-${i}`) })));
    expect(responses.map((r) => r.status)).toEqual(writes.map(() => 200));
    // A second round on the new revisions, again all at once.
    const again = await Promise.all(writes.map(({ server, image }, i) => userClient(server === a ? b : a, owner).put(path(image), { revision: 1, objects: large(`second-${i}`) })));
    expect(again.map((r) => r.status)).toEqual(writes.map(() => 200));
    for (const [i, { image }] of writes.entries()) {
      const stored = await expectJson<ImageAnnotations>(await userClient(a, owner).get(path(image)), 200);
      expect(stored.revision).toBe(2);
      expect(stored.objects.map((o) => o.id)).toEqual(large(`second-${i}`).map((o) => o.id));
      expect(stored.objects[19].polygons).toEqual(large(`second-${i}`)[19].polygons);
    }
  });

  it('refuses a large body that is not JSON (400) or that names an unknown class (400), and a body over 16 MB (413), writing nothing', async () => {
    const { images, path } = await projectWithImages(1);
    const target = path(images[0]);
    const text = JSON.stringify({ revision: 0, objects: large('cut') });
    await expectProblem(await a.fetch(target, { method: 'PUT', headers: { ...owner.bearer, 'content-type': 'application/json' }, body: text.slice(0, -10) }), 400, 'malformed-json');
    const unknown = large('odd').map((o, i) => (i === 7 ? { ...o, classId: 9 } : o));
    const invalid = await expectProblem(await userClient(a, owner).put(target, { revision: 0, objects: unknown }), 400, 'validation-failed');
    expect((invalid.errors as Array<{ path: string }>).map((e) => e.path)).toEqual(['objects.7.classId']);
    const huge = `{"revision":0,"objects":[],"pad":"${'x'.repeat(16 * 1024 * 1024)}"}`;
    await expectProblem(await a.fetch(target, { method: 'PUT', headers: { ...owner.bearer, 'content-type': 'application/json' }, body: huge }), 413, 'payload-too-large');
    const stored = await expectJson<ImageAnnotations>(await userClient(b, owner).get(target), 200);
    expect(stored).toMatchObject({ revision: 0, objects: [] });
  });
});
